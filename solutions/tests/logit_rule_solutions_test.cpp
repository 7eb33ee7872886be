// The C++ model solutions follow the rule for logits (docs/ARCHITECTURE.md)
// on the hand-built cases of logit_rule_cases.json (the Python solutions are
// held to the same file by logit_rule_solutions.py): they refuse where the
// rule says and otherwise answer exactly.
#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "attention.hpp"
#include "attention_tiled.hpp"
#include "masked_attention.hpp"
#include "multi_head_attention.hpp"

namespace {

using Json = nlohmann::json;
using Matrix = f3::Matrix;  // every exercise uses the same row-major double matrix
using Mask = f3::Mask;

Json cases(const char* group) {
  std::ifstream in(ATTNLAB_LOGIT_RULE_CASES);
  REQUIRE(in);
  return Json::parse(in).at(group);
}

Matrix matrix(const Json& rows) {
  Matrix M(Eigen::Index(rows.size()), rows.empty() ? 0 : Eigen::Index(rows[0].size()));
  for (Eigen::Index i = 0; i < M.rows(); ++i)
    for (Eigen::Index j = 0; j < M.cols(); ++j) M(i, j) = rows[std::size_t(i)][std::size_t(j)].get<double>();
  return M;
}

std::optional<Mask> mask(const Json& rows) {
  if (rows.is_null()) return std::nullopt;
  Mask M(Eigen::Index(rows.size()), Eigen::Index(rows[0].size()));
  for (Eigen::Index i = 0; i < M.rows(); ++i)
    for (Eigen::Index j = 0; j < M.cols(); ++j) M(i, j) = rows[std::size_t(i)][std::size_t(j)].get<bool>();
  return M;
}

/// Runs `answer` (which returns O, and fills A when the solution returns it)
/// and holds it to the case's expectation.
void check(const std::string& who, const Json& c, const std::function<Matrix(Matrix*)>& answer) {
  INFO(who << ", " << c.at("name").get<std::string>());
  const bool refuse = c.value("expect", "") == "refuse";
  Matrix A;
  Matrix O;
  try {
    O = answer(&A);
  } catch (const std::exception& e) {
    INFO("refused: " << e.what());
    CHECK(refuse);
    return;
  }
  INFO("answered O = " << O);
  REQUIRE_FALSE(refuse);
  CHECK(O.isApprox(matrix(c.at("O")), 1e-12));
  if (A.size() > 0 && c.contains("A")) CHECK(A == matrix(c.at("A")));
}

}  // namespace

TEST_CASE("the C++ model solutions of F3, F4 and T1 follow the rule for logits", "[solutions]") {
  for (const Json& c : cases("attention")) {
    const Matrix Q = matrix(c.at("Q")), K = matrix(c.at("K")), V = matrix(c.at("V"));
    const std::optional<Mask> m = mask(c.at("mask"));
    check("F3", c, [&](Matrix* A) { auto r = f3::attention(Q, K, V, m); *A = r.A; return r.O; });
    check("F4", c, [&](Matrix* A) { auto r = f4::attention(Q, K, V, m); *A = r.A; return r.O; });
    check("T1 attention", c, [&](Matrix* A) { auto r = t1::attention(Q, K, V, m); *A = r.A; return r.O; });
    for (Eigen::Index tile : {1, 2})
      check("T1 attention_tiled, tiles " + std::to_string(tile), c,
            [&](Matrix*) { return t1::attention_tiled(Q, K, V, m, tile, tile).O; });
  }
}

TEST_CASE("the C++ model solution of M1 follows the rule for logits", "[solutions]") {
  for (const Json& c : cases("multi_head_attention")) {
    std::vector<m1::HeadWeights> heads;
    for (std::size_t h = 0; h < c.at("W_Q").size(); ++h)
      heads.push_back({matrix(c["W_Q"][h]), matrix(c["W_K"][h]), matrix(c["W_V"][h])});
    const Matrix X = matrix(c.at("X")), W_O = matrix(c.at("W_O"));
    const std::optional<Mask> m = mask(c.at("mask"));
    check("M1", c, [&](Matrix*) { return m1::multi_head_attention(X, heads, W_O, m); });
  }
}

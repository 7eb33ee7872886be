// The C++ harness's exercise part for M1: X, the heads' projections, W_O and
// the mask to m1::multi_head_attention (grader/PROTOCOL.md, op multi_head_attention).
#include <optional>
#include <string>
#include <vector>

#include "protocol/json_matrix.hpp"
#include "cpp_harness.hpp"
#include "cpp_harness_attention.hpp"
#include "multi_head_attention.hpp"

namespace attn::harness {

const ExerciseInfo exercise{"M1", "m1::multi_head_attention", {"multi_head_attention"}};

namespace {

/// Head i's matrix `name` (W_Q, W_K or W_V) from the request's list.
m1::Matrix head_matrix(const nlohmann::json& request, const char* name, std::size_t i) {
  const std::string shown = std::string(name) + "[" + std::to_string(i) + "]";
  return grader::decode_matrix(request.at(name).at(i), shown.c_str(),
                               declared_cols(request, name));
}

}  // namespace

nlohmann::json answer(const nlohmann::json& request) {
  const m1::Matrix X = grader::decode_matrix(request.at("X"), "X", declared_cols(request, "X"));
  const m1::Matrix W_O =
      grader::decode_matrix(request.at("W_O"), "W_O", declared_cols(request, "W_O"));
  std::vector<m1::HeadWeights> heads;
  for (std::size_t i = 0; i < request.at("W_Q").size(); ++i)
    heads.push_back({head_matrix(request, "W_Q", i), head_matrix(request, "W_K", i),
                     head_matrix(request, "W_V", i)});
  const std::optional<m1::Mask> mask = decode_optional_mask<m1::Mask>(request);
  KeptInputs kept;
  kept.keep("X", X).keep("W_O", W_O).keep("mask", mask);
  for (std::size_t i = 0; i < heads.size(); ++i) {
    const std::string at = "[" + std::to_string(i) + "]";
    kept.keep("W_Q" + at, heads[i].W_Q).keep("W_K" + at, heads[i].W_K).keep("W_V" + at, heads[i].W_V);
  }
  return call_keeping(kept, [&] {
    return nlohmann::json{
        {"O", grader::encode_matrix(m1::multi_head_attention(X, heads, W_O, mask))}};
  });
}

}  // namespace attn::harness

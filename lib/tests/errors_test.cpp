// The library's typed errors: which input, which row, which shapes.
#include <catch2/catch.hpp>
#include <limits>

#include "attn/attn.hpp"

using M = attn::Matrix<double>;

TEST_CASE("d_k mismatch is a ShapeError naming both shapes", "[errors]") {
  try {
    attn::attention<double>(M::Ones(2, 3), M::Ones(4, 2), M::Ones(4, 1));
    FAIL("no error");
  } catch (const attn::ShapeError& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("2x3"));
    CHECK_THAT(what, Catch::Contains("4x2"));
  }
  CHECK_THROWS_AS(attn::attention<double>(M::Ones(2, 2), M::Ones(3, 2), M::Ones(4, 1)),
                  attn::ShapeError);
  CHECK_THROWS_AS(attn::attention<double>(M::Ones(2, 0), M::Ones(3, 0), M::Ones(3, 1)),
                  attn::ShapeError);
  CHECK_THROWS_AS(attn::attention<double>(M::Ones(2, 2), M::Ones(3, 2), M::Ones(3, 1),
                                          attn::Mask::Constant(3, 2, false)),
                  attn::ShapeError);
  // ShapeError is an invalid_argument (docs/ARCHITECTURE.md, lib/ contract).
  CHECK_THROWS_AS(attn::scores<float>(attn::Matrix<float>::Ones(1, 2), attn::Matrix<float>::Ones(1, 3)),
                  std::invalid_argument);
}

TEST_CASE("a fully forbidden row is refused with its index", "[errors]") {
  attn::Mask mask = attn::Mask::Constant(3, 2, false);
  mask.row(2).setConstant(true);
  try {
    attn::attention<float>(attn::Matrix<float>::Ones(3, 2), attn::Matrix<float>::Ones(2, 2),
                           attn::Matrix<float>::Ones(2, 2), mask);
    FAIL("no error");
  } catch (const attn::FullyMaskedRowError& e) {
    CHECK(e.row() == 2);
    CHECK_THAT(std::string(e.what()), Catch::Contains("row 2"));
  }
  // T_v = 0: no key at all for any query.
  CHECK_THROWS_AS(attn::attention<double>(M::Ones(1, 2), M::Ones(0, 2), M::Ones(0, 1)),
                  attn::FullyMaskedRowError);
  // A row of only -inf logits is fully forbidden too.
  M S(1, 2);
  S << -std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity();
  CHECK_THROWS_AS(attn::softmax_rows<double>(S), attn::FullyMaskedRowError);
}

TEST_CASE("non-finite inputs are refused naming the matrix and the entry", "[errors]") {
  M Q = M::Ones(2, 2), K = M::Ones(2, 2), V = M::Ones(2, 2);
  V(1, 0) = std::numeric_limits<double>::quiet_NaN();
  try {
    attn::attention<double>(Q, K, V);
    FAIL("no error");
  } catch (const attn::NonFiniteInputError& e) {
    CHECK(e.matrix() == "V");
    CHECK(e.row() == 1);
    CHECK(e.col() == 0);
  }
  K(0, 1) = std::numeric_limits<double>::infinity();
  V(1, 0) = 0;
  CHECK_THROWS_AS(attn::attention<double>(Q, K, V), attn::NonFiniteInputError);
  M S = M::Zero(1, 2);
  S(0, 1) = std::numeric_limits<double>::infinity();
  CHECK_THROWS_AS(attn::softmax_rows<double>(S), attn::NonFiniteInputError);
  // Logits that overflow double from finite Q and K.
  CHECK_THROWS_AS(attn::attention<double>(M::Constant(1, 1, 1e200), M::Constant(1, 1, 1e200),
                                          M::Ones(1, 1)),
                  attn::NonFiniteInputError);
}

TEST_CASE("empty query sets are handled: T_q = 0 gives empty O and A", "[errors]") {
  const auto r = attn::attention<double>(M(0, 2), M::Ones(3, 2), M::Ones(3, 4));
  CHECK(r.O.rows() == 0);
  CHECK(r.O.cols() == 4);
  CHECK(r.A.rows() == 0);
  CHECK(r.A.cols() == 3);
}

// ---- The rule for logits, one for every operation (docs/ARCHITECTURE.md,
// "The rule for logits"): overflowing logits are decided one way everywhere.

namespace {
/// Q K^T / sqrt(2) for Q = [q, q] and K rows [k_j, k_j]: 2 q k_j / sqrt(2).
M one_query(double q) { return M::Constant(1, 2, q); }
}  // namespace

TEST_CASE("a row whose allowed logits all overflow to -inf is a NonFiniteInputError, not a fully masked row",
          "[errors][logits]") {
  M K(2, 2);
  K << -1e200, -1e200, -1e200, -1e200;
  try {
    attn::attention<double>(one_query(1e200), K, M::Ones(2, 1));
    FAIL("no error");
  } catch (const attn::NonFiniteInputError& e) {
    CHECK(e.matrix() == "S");
    CHECK(e.rows() == 1);
    CHECK(e.cols() == 2);
    const std::string what = e.what();
    CHECK_THAT(what, Catch::StartsWith("attention: "));
    CHECK_THAT(what, Catch::Contains("overflows to -inf in double"));
    CHECK_THAT(what, !Catch::Contains("inputs must be finite"));
  }
}

TEST_CASE("an allowed logit that overflows to +inf is refused as an overflow, naming attention",
          "[errors][logits]") {
  M K(2, 2);
  K << 1e200, 1e200, 1, 1;
  try {
    attn::attention<double>(one_query(1e200), K, M::Ones(2, 1));
    FAIL("no error");
  } catch (const attn::NonFiniteInputError& e) {
    CHECK(e.matrix() == "S");
    CHECK(e.row() == 0);
    CHECK(e.col() == 0);
    const std::string what = e.what();
    CHECK_THAT(what, Catch::StartsWith("attention: S(0, 0) is inf (S is 1x2)"));
    CHECK_THAT(what, Catch::Contains("the logit overflows double"));
    CHECK_THAT(what, !Catch::Contains("scores:"));
  }
}

TEST_CASE("a logit at a forbidden key is never read: +inf there is answered, with weight 0",
          "[errors][logits]") {
  M K(2, 2);
  K << 1e200, 1e200, 1, 1;
  attn::Mask mask = attn::Mask::Constant(1, 2, false);
  mask(0, 0) = true;
  const auto r = attn::attention<double>(one_query(1e200), K, (M(2, 1) << 5, 7).finished(), mask);
  CHECK(r.A(0, 0) == 0.0);
  CHECK(r.A(0, 1) == 1.0);
  CHECK(r.O(0, 0) == 7.0);
  // Given logits: NaN or +inf at a forbidden entry are not read either.
  M S(1, 3);
  S << std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(), 0.5;
  attn::Mask m2 = attn::Mask::Constant(1, 3, false);
  m2(0, 0) = m2(0, 1) = true;
  const M A = attn::masked_softmax<double>(S, m2);
  CHECK(A(0, 2) == 1.0);
  CHECK(A(0, 0) == 0.0);
}

TEST_CASE("one allowed logit overflowing to -inf beside a finite one gets weight exactly 0",
          "[errors][logits]") {
  M K(2, 2);
  K << -1e200, -1e200, 1, 1;
  const auto r = attn::attention<double>(one_query(1e200), K, (M(2, 1) << 5, 7).finished());
  CHECK(r.A(0, 0) == 0.0);
  CHECK(r.A(0, 1) == 1.0);
}

TEST_CASE("given logits: -inf means forbidden, a row of -inf is a fully masked row with the shape",
          "[errors][logits]") {
  M S(2, 2);
  S << 0, 1, -std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity();
  try {
    attn::softmax_rows<double>(S);
    FAIL("no error");
  } catch (const attn::FullyMaskedRowError& e) {
    CHECK(e.row() == 1);
    CHECK(e.T_q() == 2);
    CHECK(e.T_v() == 2);
    CHECK_THAT(std::string(e.what()), Catch::StartsWith("softmax_rows: "));
    CHECK_THAT(std::string(e.what()), Catch::Contains("2x2"));
  }
}

TEST_CASE("NaN in an input names the matrix, the entry, its shape and the function called", "[errors]") {
  M V = M::Ones(2, 3);
  V(1, 2) = std::numeric_limits<double>::quiet_NaN();
  try {
    attn::attention<double>(M::Ones(1, 2), M::Ones(2, 2), V);
    FAIL("no error");
  } catch (const attn::NonFiniteInputError& e) {
    CHECK(e.matrix() == "V");
    CHECK(e.rows() == 2);
    CHECK(e.cols() == 3);
    CHECK_THAT(std::string(e.what()), Catch::StartsWith("attention: V(1, 2) is nan (V is 2x3)"));
  }
}

TEST_CASE("multi-head: an overflowing output projection is refused, a head's errors name the head",
          "[errors][multi_head]") {
  attn::MultiHeadWeights<double> w;
  w.heads.push_back({M::Identity(2, 2), M::Identity(2, 2), M::Identity(2, 2)});
  w.W_O = M::Constant(2, 2, 1e308);
  try {
    attn::multi_head_attention<double>(M::Constant(2, 2, 10), w);
    FAIL("no error");
  } catch (const attn::NonFiniteInputError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("W_O"));
  }
  w.W_O = M::Identity(2, 2);
  attn::Mask mask = attn::Mask::Constant(2, 2, false);
  mask.row(1).setConstant(true);
  try {
    attn::multi_head_attention<double>(M::Ones(2, 2), w, mask);
    FAIL("no error");
  } catch (const attn::FullyMaskedRowError& e) {
    CHECK(e.row() == 1);
    CHECK_THAT(std::string(e.what()), Catch::StartsWith("multi_head_attention: head 0: "));
  }
}

TEST_CASE("attention_tiled follows the rule for logits and does not overflow on |V| near the maximum",
          "[errors][logits][tiled]") {
  // Values near the largest double: attention gives the exact finite answer
  // (a convex combination of V's rows); the tiled form must too.
  const double big = std::numeric_limits<double>::max() / 2;
  M V(3, 1);
  V << big, big, big;
  const auto naive = attn::attention<double>(M::Zero(2, 2), M::Zero(3, 2), V);
  attn::TileSizes tiles;
  tiles.query = 1;
  tiles.key = 1;
  const auto tiled = attn::attention_tiled<double>(M::Zero(2, 2), M::Zero(3, 2), V, std::nullopt, tiles);
  CHECK(std::isfinite(naive.O(0, 0)));
  CHECK(tiled.O(0, 0) == Approx(naive.O(0, 0)).epsilon(1e-15));
  CHECK(std::isfinite(tiled.O(1, 0)));
  // The same overflow decisions as attention.
  M K(2, 2);
  K << -1e200, -1e200, -1e200, -1e200;
  CHECK_THROWS_AS(attn::attention_tiled<double>(one_query(1e200), K, M::Ones(2, 1), std::nullopt),
                  attn::NonFiniteInputError);
  M K2(2, 2);
  K2 << 1e200, 1e200, 1, 1;
  attn::Mask mask = attn::Mask::Constant(1, 2, false);
  mask(0, 0) = true;
  const auto r = attn::attention_tiled<double>(one_query(1e200), K2, (M(2, 1) << 5, 7).finished(), mask);
  CHECK(r.O(0, 0) == 7.0);
}

// Checks of the oracle itself, independent of the library's answers.
#include <catch2/catch.hpp>
#include <limits>

#include "attn/ref/error_bound.hpp"
#include "attn/ref/oracle.hpp"

using attn::ref::BoolMatrix;
using attn::ref::DMatrix;
using attn::ref::Real;

TEST_CASE("oracle: rows of A sum to 1 to 45 digits and forbidden weights are 0", "[oracle]") {
  DMatrix Q(3, 2), K(4, 2), V(4, 1);
  Q << 1, 2, -3, 0.5, 700, 1;
  K << 0.25, -1, 2, 2, -0.5, 3, 1, 1;
  V << 1, 2, 3, 4;
  BoolMatrix mask = BoolMatrix::Constant(3, 4, false);
  mask(0, 1) = mask(2, 3) = true;
  const auto r = attn::ref::exact_attention(Q, K, V, mask);
  for (int i = 0; i < 3; ++i) {
    Real sum = 0;
    for (int j = 0; j < 4; ++j) sum += r.A(i, j);
    CHECK(abs(sum - 1) < Real("1e-45"));
  }
  CHECK(r.A(0, 1) == 0);
  CHECK(r.A(2, 3) == 0);
}

TEST_CASE("oracle: a fully forbidden row, d_k mismatch and NaN are refused", "[oracle]") {
  DMatrix Q = DMatrix::Ones(2, 2), K = DMatrix::Ones(2, 2), V = DMatrix::Ones(2, 1);
  BoolMatrix mask = BoolMatrix::Constant(2, 2, false);
  mask.row(1).setConstant(true);
  try {
    attn::ref::exact_attention(Q, K, V, mask);
    FAIL("expected a refusal");
  } catch (const attn::ref::OracleRefusal& e) {
    CHECK(e.row() == 1);
  }
  CHECK_THROWS_AS(attn::ref::exact_attention(Q, DMatrix::Ones(2, 3), V, std::nullopt),
                  attn::ref::OracleRefusal);
  Q(0, 0) = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_AS(attn::ref::exact_attention(Q, K, V, std::nullopt), attn::ref::OracleRefusal);
}

TEST_CASE("oracle: logits beyond 700 do not overflow", "[oracle]") {
  DMatrix S(1, 3);
  S << 800, 790, -800;
  const auto r = attn::ref::exact_masked_softmax(S, std::nullopt);
  const double a0 = static_cast<double>(r.A(0, 0));
  CHECK(a0 > 0.9999);
  CHECK(a0 < 1.0);
  CHECK(static_cast<double>(r.logsumexp[0]) > 800.0);
}

TEST_CASE("error bound: gamma_n and the row-sum bound scale with u and n", "[bound]") {
  CHECK(attn::ref::gamma(10, 0x1p-53) > 10 * 0x1p-53);
  CHECK(attn::ref::gamma(10, 0x1p-53) < 10.001 * 0x1p-53);
  const auto d = attn::ref::PrecisionModel::for_double();
  const auto f = attn::ref::PrecisionModel::for_float();
  auto row_sum = [](int T_v, double logit, const attn::ref::PrecisionModel& p) {
    const DMatrix S = DMatrix::Constant(1, T_v, logit);
    return attn::ref::softmax_error_bound(attn::ref::exact_masked_softmax(S, std::nullopt), p).row_sum[0];
  };
  CHECK(row_sum(8, 0, f) > 1e8 * row_sum(8, 0, d));
  CHECK(row_sum(64, 0, d) > row_sum(8, 0, d));
  // A logsumexp-form softmax rounds exp(s_j - lse) with lse of the logits'
  // size: the row-sum bound grows with |lse| (TOLERANCE.md, "Row sums"):
  // about 1050 u at logits of 1000, 50 u at 0 (5-ulp exp and log).
  CHECK(row_sum(8, 1000, d) > 10 * row_sum(8, 0, d));
  CHECK(row_sum(8, 1000, d) < 2 * 1100 * 0x1p-53);
}

TEST_CASE("oracle: an explicit scale s gives the logits s Q K^T, taken exactly", "[oracle]") {
  DMatrix Q(2, 4), K(3, 4), V(3, 1);
  Q << 1, 2, -3, 0.5, 0, 1, 1, -2;
  K << 0.25, -1, 2, 2, -0.5, 3, 1, 1, 0, 0, 1, 4;
  V << 1, 2, 3;
  // d_k = 4: scale 0.5 is the default 1/sqrt(d_k), exactly.
  const auto by_default = attn::ref::exact_attention(Q, K, V, std::nullopt);
  const auto half = attn::ref::exact_attention(Q, K, V, std::nullopt, 0.5);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) CHECK(half.S(i, j) == by_default.S(i, j));
  // scale 2 on Q equals the default on 4 Q (both exact in double).
  const auto two = attn::ref::exact_attention(Q, K, V, std::nullopt, 2.0);
  const auto four_q = attn::ref::exact_attention(DMatrix(4 * Q), K, V, std::nullopt);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) CHECK(two.S(i, j) == four_q.S(i, j));
    CHECK(abs(two.O(i, 0) - four_q.O(i, 0)) < Real("1e-45"));
  }
  // The bound scales the dot products by |s|: for s = 2 it is that of 4 Q's logits.
  const auto model = attn::ref::PrecisionModel::for_float();
  const auto b2 = attn::ref::attention_error_bound(Q, K, V, two, model, 2.0);
  const auto b4 = attn::ref::attention_error_bound(DMatrix(4 * Q), K, V, four_q, model);
  CHECK(b2.S(1, 2) == Approx(b4.S(1, 2)).epsilon(1e-12));
  CHECK_THROWS_AS(attn::ref::exact_attention(Q, K, V, std::nullopt,
                                             std::numeric_limits<double>::infinity()),
                  attn::ref::OracleRefusal);
}

TEST_CASE("bound: a row with one allowed key is exact in A, its row sum and O", "[bound]") {
  // Row 0 allows key 1 only; row 1 allows all three (TOLERANCE.md (8)).
  DMatrix Q(2, 2), K(3, 2), V(3, 2);
  Q << 0.7, -1.3, 2, 0.25;
  K << 1, 2, -0.5, 3, 4, -1;
  V << 1.5, -2, 0.125, 3, 7, 1;
  BoolMatrix mask = BoolMatrix::Constant(2, 3, false);
  mask(0, 0) = mask(0, 2) = true;
  const auto exact = attn::ref::exact_attention(Q, K, V, mask);
  CHECK(exact.A(0, 1) == 1);
  for (const auto& model : {attn::ref::PrecisionModel::for_double(), attn::ref::PrecisionModel::for_float()}) {
    const auto b = attn::ref::attention_error_bound(Q, K, V, exact, model);
    for (int j = 0; j < 3; ++j) CHECK(b.A(0, j) == 0);
    CHECK(b.row_sum[0] == 0);
    CHECK(b.O(0, 0) == 0);
    CHECK(b.O(0, 1) == 0);
    // The logits of that row still carry their rounding, and the other row
    // its whole bound.
    CHECK(b.S(0, 1) > 0);
    CHECK(b.A(1, 0) > 0);
    CHECK(b.row_sum[1] > 0);
    CHECK(b.O(1, 0) > 0);
  }
}

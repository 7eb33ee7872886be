// The oracle for the backward pass (exact_attention_backward): checked
// against a Richardson-extrapolated central difference of the forward
// oracle, against its own identities (D two ways, rows of dS summing to 0,
// exact zeros), then the library's naive backward against it.
#include "attn/ref/oracle_backward.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <type_traits>

#include "attn/attn.hpp"
#include "attn/ref/backward_bound.hpp"
#include "attn/ref/oracle.hpp"
#include "random_dyadic.hpp"

using attn::ref::BoolMatrix;
using attn::ref::DMatrix;
using attn::ref::Real;
using attn::ref::RealMatrix;

namespace {

using attn::ref::test::dyadic;

struct Case {
  DMatrix Q, K, V, dO;
  std::optional<BoolMatrix> mask;
  std::optional<double> scale;
};

Case random_case(std::ptrdiff_t T_q, std::ptrdiff_t T_v, std::ptrdiff_t d_k, std::ptrdiff_t d_v,
                 std::mt19937_64& rng) {
  return {dyadic(T_q, d_k, rng), dyadic(T_v, d_k, rng), dyadic(T_v, d_v, rng),
          dyadic(T_q, d_v, rng), std::nullopt, std::nullopt};
}

/// L = sum_il dO_il O_il, O from the forward oracle.
Real loss(const Case& c, const DMatrix& Q, const DMatrix& K, const DMatrix& V) {
  const RealMatrix O = attn::ref::exact_attention(Q, K, V, c.mask, c.scale).O;
  Real s = 0;
  for (std::ptrdiff_t i = 0; i < O.rows; ++i)
    for (std::ptrdiff_t l = 0; l < O.cols; ++l) s += Real(c.dO(i, l)) * O(i, l);
  return s;
}

/// Central differences with steps h = 2^-12 and h/2, combined by Richardson
/// extrapolation, (4 D(h/2) - D(h)) / 3: the h^2 terms cancel and the error
/// is about h^4 |L^(5)| / 30 < 1e-14 for these sizes (entries <= 2, at most
/// 5 keys), with no rounding (50 digits, exact perturbed inputs). A wrong
/// gradient formula is off by 1e-3 or more; the tolerance is 1e-11 (1 + |g|).
void check_against_difference(const Case& c) {
  const auto g = attn::ref::exact_attention_backward(c.Q, c.K, c.V, c.dO, c.mask, c.scale);
  auto difference = [&](int which, std::ptrdiff_t a, std::ptrdiff_t b, double h) {
    DMatrix in[3] = {c.Q, c.K, c.V};
    in[which](a, b) += h;
    const Real up = loss(c, in[0], in[1], in[2]);
    in[which](a, b) -= 2 * h;
    return Real((up - loss(c, in[0], in[1], in[2])) / (2 * h));
  };
  const RealMatrix* grads[3] = {&g.dQ, &g.dK, &g.dV};
  for (int which = 0; which < 3; ++which)
    for (std::ptrdiff_t a = 0; a < grads[which]->rows; ++a)
      for (std::ptrdiff_t b = 0; b < grads[which]->cols; ++b) {
        const double h = std::ldexp(1.0, -12);
        const Real fd = (4 * difference(which, a, b, h / 2) - difference(which, a, b, h)) / 3;
        const Real exact = (*grads[which])(a, b);
        INFO("gradient " << "QKV"[which] << "(" << a << ", " << b << "): oracle "
                         << exact.str(20) << ", difference " << fd.str(20));
        CHECK(abs(exact - fd) <= Real(1e-11) * (1 + abs(fd)));
      }
}

BoolMatrix random_mask(std::ptrdiff_t T_q, std::ptrdiff_t T_v, std::mt19937_64& rng) {
  std::bernoulli_distribution forbid(0.4);
  BoolMatrix M(T_q, T_v);
  for (std::ptrdiff_t i = 0; i < T_q; ++i) {
    for (std::ptrdiff_t j = 0; j < T_v; ++j) M(i, j) = forbid(rng);
    M(i, i % T_v) = false;
  }
  return M;
}

}  // namespace

TEST_CASE("oracle backward: agrees with an extrapolated central difference of the forward oracle",
          "[oracle_backward]") {
  std::mt19937_64 rng(2611);
  Case plain = random_case(3, 4, 2, 3, rng);
  check_against_difference(plain);
  Case masked = random_case(4, 5, 3, 2, rng);
  masked.mask = random_mask(4, 5, rng);
  masked.scale = 0.75;
  check_against_difference(masked);
}

TEST_CASE("oracle backward: its identities hold to 50 digits", "[oracle_backward]") {
  std::mt19937_64 rng(2612);
  Case c = random_case(5, 7, 3, 4, rng);
  c.mask = random_mask(5, 7, rng);
  for (std::ptrdiff_t i = 0; i < 5; ++i) (*c.mask)(i, 6) = true;  // key 6: no query sees it
  const auto g = attn::ref::exact_attention_backward(c.Q, c.K, c.V, c.dO, c.mask);
  const Real tiny("1e-45");
  for (std::ptrdiff_t i = 0; i < 5; ++i) {
    // D_i = sum_j P_ij dP_ij equals sum_l dO_il O_il (O_i = sum_j P_ij V_j).
    Real dO_O = 0, row_sum = 0, scale_of_row = 0;
    for (std::ptrdiff_t l = 0; l < 4; ++l) dO_O += Real(c.dO(i, l)) * g.forward.O(i, l);
    CHECK(abs(g.D[std::size_t(i)] - dO_O) <= tiny);
    // Each row of dS sums to 0: the softmax is invariant to a shift of its row.
    for (std::ptrdiff_t j = 0; j < 7; ++j) {
      row_sum += g.dS(i, j);
      scale_of_row += abs(g.dS(i, j));
      if ((*c.mask)(i, j)) CHECK(g.dS(i, j) == 0);
    }
    CHECK(scale_of_row > Real("1e-6"));
    CHECK(abs(row_sum) <= tiny);
  }
  for (std::ptrdiff_t r = 0; r < 3; ++r) CHECK(g.dK(6, r) == 0);
  for (std::ptrdiff_t l = 0; l < 4; ++l) CHECK(g.dV(6, l) == 0);
}

TEST_CASE("oracle backward: refusals", "[oracle_backward]") {
  std::mt19937_64 rng(2613);
  const Case c = random_case(3, 4, 2, 2, rng);
  using attn::ref::OracleRefusal;
  CHECK_THROWS_AS(attn::ref::exact_attention_backward(c.Q, c.K, c.V, DMatrix::Zero(3, 3),
                                                      std::nullopt),
                  OracleRefusal);
  DMatrix bad = c.dO;
  bad(2, 1) = std::numeric_limits<double>::infinity();
  CHECK_THROWS_AS(attn::ref::exact_attention_backward(c.Q, c.K, c.V, bad, std::nullopt),
                  OracleRefusal);
  BoolMatrix mask = BoolMatrix::Constant(3, 4, false);
  mask.row(1).setConstant(true);
  try {
    attn::ref::exact_attention_backward(c.Q, c.K, c.V, c.dO, mask);
    FAIL("the oracle answered a fully forbidden row");
  } catch (const OracleRefusal& e) {
    CHECK(e.row() == 1);
  }
}

// The library's naive backward against the oracle, in double and float,
// within the a-priori bound of TOLERANCE.md, "The backward pass"
// (attention_backward_error_bound). The inputs are first rounded to T and
// those rounded values go to both.
TEMPLATE_TEST_CASE("oracle backward: the library's naive backward is within its rounding",
                   "[oracle_backward]", float, double) {
  using T = TestType;
  using M = attn::Matrix<T>;
  std::mt19937_64 rng(2614);
  const auto p = std::is_same_v<T, float> ? attn::ref::PrecisionModel::for_float()
                                          : attn::ref::PrecisionModel::for_double();
  const std::ptrdiff_t shapes[][4] = {{1, 1, 1, 1}, {4, 7, 3, 5}, {9, 6, 8, 2}, {16, 33, 4, 4}};
  for (const auto& s : shapes)
    for (bool masked : {false, true}) {
      Case c = random_case(s[0], s[1], s[2], s[3], rng);
      if (masked) c.mask = random_mask(s[0], s[1], rng);
      const M Q = c.Q.cast<T>(), K = c.K.cast<T>(), V = c.V.cast<T>(), dO = c.dO.cast<T>();
      std::optional<attn::Mask> mask;
      if (c.mask) mask = *c.mask;
      const auto lib = attn::attention_backward<T>(Q, K, V, dO, mask);
      const DMatrix in[4] = {Q.template cast<double>(), K.template cast<double>(),
                             V.template cast<double>(), dO.template cast<double>()};
      const auto g = attn::ref::exact_attention_backward(in[0], in[1], in[2], in[3], c.mask);
      const auto b = attn::ref::attention_backward_error_bound(in[0], in[1], in[2], in[3], g, p);
      const M* got[3] = {&lib.dQ, &lib.dK, &lib.dV};
      const RealMatrix* want[3] = {&g.dQ, &g.dK, &g.dV};
      const DMatrix* bound[3] = {&b.dQ, &b.dK, &b.dV};
      for (int w = 0; w < 3; ++w) {
        const DMatrix err = (got[w]->template cast<double>() - attn::ref::to_double(*want[w])).cwiseAbs();
        INFO("d" << "QKV"[w] << ", shape " << s[0] << " " << s[1] << " " << s[2] << " " << s[3]
                 << ", masked " << masked << ": error " << err.maxCoeff());
        CHECK((err.array() <= bound[w]->array()).all());
      }
    }
}

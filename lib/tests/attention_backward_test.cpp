// The backward pass of attention (attention_backward, attention_backward_tiled):
// the naive form against a central finite difference of the forward (an
// independent check of the gradients), the tiled form against the naive one
// within a rounding bound, the exact zeros of keys no query may see, the
// softmax's shift invariance differentiated (each row of dS sums to 0), and
// the refusals.
#include <omp.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <optional>
#include <random>

#include "attn/attn.hpp"
#include "random_inputs.hpp"

using attn::Index;
using attn::Mask;
using attn::test::random_mask;
using attn::test::uniform;

namespace {

template <class T>
T max_abs(const attn::Matrix<T>& M) {
  return M.size() ? M.cwiseAbs().maxCoeff() : T(0);
}

/// One problem: inputs, mask, options.
template <class T>
struct Problem {
  attn::Matrix<T> Q, K, V, dO;
  std::optional<Mask> mask;
  attn::AttentionOptions options;
};

template <class T>
Problem<T> random_problem(Index T_q, Index T_v, Index d_k, Index d_v, std::mt19937_64& rng) {
  Problem<T> p;
  p.Q = uniform<T>(T_q, d_k, rng, -2, 2);
  p.K = uniform<T>(T_v, d_k, rng, -2, 2);
  p.V = uniform<T>(T_v, d_v, rng);
  p.dO = uniform<T>(T_q, d_v, rng);
  return p;
}

/// The loss whose gradient the backward computes: L = sum_ij dO_ij O_ij, O
/// from the forward with the same mask and options (long double sum).
long double loss(const Problem<double>& p, const attn::Matrix<double>& Q,
                 const attn::Matrix<double>& K, const attn::Matrix<double>& V) {
  const attn::Matrix<double> O = attn::attention_tiled<double>(Q, K, V, p.mask, p.options).O;
  long double s = 0;
  for (Index i = 0; i < O.rows(); ++i)
    for (Index j = 0; j < O.cols(); ++j) s += static_cast<long double>(p.dO(i, j)) * O(i, j);
  return s;
}

/// Central difference of the loss in each entry of Q, K and V; compares with
/// the naive backward. Step h = 1e-4 on entries of size <= 2: the truncation
/// error h^2/6 |L'''| stays below about 1e-7 for these sizes and the
/// rounding error of the difference, about 1e-16 |L| / h, below 1e-11; the
/// tolerance 1e-6 (1 + |g|) leaves a factor of 10 above both, while a
/// missing scale, a missing D term or a forgotten mask is off by 1e-2 or more.
void check_against_finite_difference(const Problem<double>& p) {
  const auto g = attn::attention_backward<double>(p.Q, p.K, p.V, p.dO, p.mask, p.options);
  const double h = 1e-4;
  auto compare = [&](const attn::Matrix<double>& grad, int which, const char* name) {
    for (Index a = 0; a < grad.rows(); ++a)
      for (Index b = 0; b < grad.cols(); ++b) {
        attn::Matrix<double> in[3] = {p.Q, p.K, p.V};
        in[which](a, b) += h;
        const long double up = loss(p, in[0], in[1], in[2]);
        in[which](a, b) -= 2 * h;
        const long double down = loss(p, in[0], in[1], in[2]);
        const double fd = static_cast<double>((up - down) / (2 * h));
        INFO(name << "(" << a << ", " << b << "): backward " << grad(a, b) << ", difference "
                  << fd);
        CHECK(std::abs(grad(a, b) - fd) <= 1e-6 * (1 + std::abs(fd)));
      }
  };
  compare(g.dQ, 0, "dQ");
  compare(g.dK, 1, "dK");
  compare(g.dV, 2, "dV");
}

/// Per-entry bounds on |tiled - naive| for dQ, dK and dV.
///
/// With u = epsilon/2, M_x = max|x|, c the scale and S_max = |c| d_k M_Q M_K
/// the largest logit: each P_ij has relative error at most about
/// (d_k + 1) u max(1, S_max) from its logit and u (T_v + d_k) max(1, S_max)
/// from the logsumexp (the naive form normalises, the tiled one subtracts L);
/// |dP_ij| and |D_i| are at most G = d_v M_dO M_V and carry errors of
/// d_v u G (a dot product) and, for the tiled D = rowsum(dO o O), the
/// forward's error in O, (3 T_v + d_k + 4) u M_V per entry. Let rel be the
/// sum of these relative errors and the final sums' (T_q or T_v terms):
///   rel = u ((2 d_k + T_v + 2) max(1, S_max) + 3 T_v + T_q + d_v + 8).
/// dQ_i = c sum_j dS_ij K_j with sum_j P_ij = 1: |error| <= |c| M_K 2 G rel;
/// dK_j = c sum_i dS_ij Q_i with sum_i P_ij <= T_q: <= |c| M_Q T_q 2 G rel;
/// dV_j = sum_i P_ij dO_i: <= T_q M_dO rel. Each form has this error; the
/// difference of two forms twice it, times a safety factor 2.
template <class T>
struct GradientTolerance {
  T dQ, dK, dV;
};

template <class T>
GradientTolerance<T> gradient_tolerance(const Problem<T>& p) {
  const T u = std::numeric_limits<T>::epsilon() / 2;
  const T d_k = T(p.Q.cols()), d_v = T(p.V.cols()), T_q = T(p.Q.rows()), T_v = T(p.K.rows());
  const T c = p.options.scale ? T(std::abs(*p.options.scale)) : T(1) / std::sqrt(d_k);
  const T S_max = c * d_k * max_abs(p.Q) * max_abs(p.K);
  const T G = d_v * max_abs(p.dO) * max_abs(p.V);
  const T rel =
      u * ((2 * d_k + T_v + 2) * std::max(T(1), S_max) + 3 * T_v + T_q + d_v + 8);
  return {4 * c * max_abs(p.K) * 2 * G * rel, 4 * c * max_abs(p.Q) * T_q * 2 * G * rel,
          4 * T_q * max_abs(p.dO) * rel};
}

template <class T>
void check_close(const attn::Matrix<T>& a, const attn::Matrix<T>& b, T tol, const char* name) {
  REQUIRE(a.rows() == b.rows());
  REQUIRE(a.cols() == b.cols());
  const T err = a.size() ? (a - b).cwiseAbs().maxCoeff() : T(0);
  INFO(name << ": largest difference " << err << ", bound " << tol);
  CHECK(err <= tol);
}

/// Tiled (with the tiled forward's O and logsumexp) against naive.
template <class T>
void check_tiled_equals_naive(const Problem<T>& p, attn::TileSizes tiles) {
  INFO("T_q = " << p.Q.rows() << ", T_v = " << p.K.rows() << ", d_k = " << p.Q.cols()
                << ", d_v = " << p.V.cols() << ", tiles " << tiles.query << " x " << tiles.key
                << ", mask " << bool(p.mask) << ", causal " << p.options.causal << ", scale "
                << (p.options.scale ? *p.options.scale : -1.0));
  const auto naive = attn::attention_backward<T>(p.Q, p.K, p.V, p.dO, p.mask, p.options);
  const auto fwd = attn::attention_tiled<T>(p.Q, p.K, p.V, p.mask, p.options, tiles);
  const auto tiled = attn::attention_backward_tiled<T>(p.Q, p.K, p.V, fwd.O, fwd.logsumexp, p.dO,
                                                       p.mask, p.options, tiles);
  const GradientTolerance<T> tol = gradient_tolerance(p);
  check_close(tiled.dQ, naive.dQ, tol.dQ, "dQ");
  check_close(tiled.dK, naive.dK, tol.dK, "dK");
  check_close(tiled.dV, naive.dV, tol.dV, "dV");
}

}  // namespace

TEST_CASE("attention_backward agrees with a central difference of the forward", "[backward]") {
  std::mt19937_64 rng(2601);
  SECTION("no mask, T_q != T_v, d_v != d_k") {
    check_against_finite_difference(random_problem<double>(3, 4, 2, 3, rng));
  }
  SECTION("a random mask") {
    Problem<double> p = random_problem<double>(4, 5, 3, 2, rng);
    p.mask = random_mask(4, 5, rng, 0.4);
    check_against_finite_difference(p);
  }
  SECTION("causal, both alignments, and a scale of its own") {
    for (auto al : {attn::CausalAlignment::top_left, attn::CausalAlignment::bottom_right}) {
      Problem<double> p = random_problem<double>(3, 5, 2, 2, rng);
      p.options.causal = true;
      p.options.alignment = al;
      p.options.scale = 0.7;
      check_against_finite_difference(p);
    }
  }
  SECTION("the forward without options (attention, the naive form) gives the same gradient") {
    const Problem<double> p = random_problem<double>(2, 3, 2, 2, rng);
    const auto g = attn::attention_backward<double>(p.Q, p.K, p.V, p.dO);
    const double h = 1e-4;
    for (Index a = 0; a < p.Q.rows(); ++a)
      for (Index b = 0; b < p.Q.cols(); ++b) {
        attn::Matrix<double> up = p.Q, down = p.Q;
        up(a, b) += h;
        down(a, b) -= h;
        const double fd = (p.dO.cwiseProduct(attn::attention<double>(up, p.K, p.V).O).sum() -
                           p.dO.cwiseProduct(attn::attention<double>(down, p.K, p.V).O).sum()) /
                          (2 * h);
        CHECK(std::abs(g.dQ(a, b) - fd) <= 1e-6 * (1 + std::abs(fd)));
      }
  }
}

TEMPLATE_TEST_CASE("attention_backward_tiled equals attention_backward within rounding",
                   "[backward][tiled]", float, double) {
  using T = TestType;
  std::mt19937_64 rng(2602);
  const Index shapes[][4] = {{1, 1, 1, 1}, {7, 5, 3, 2}, {5, 13, 4, 6}, {17, 9, 8, 3},
                             {33, 70, 16, 5}, {64, 64, 8, 8}};
  for (const auto& s : shapes)
    for (int variant = 0; variant < 4; ++variant) {
      Problem<T> p = random_problem<T>(s[0], s[1], s[2], s[3], rng);
      if (variant == 1) p.mask = random_mask(s[0], s[1], rng, 0.5);
      if (variant == 2) {  // bottom-right leaves rows without a key when T_q > T_v
        p.options.causal = true;
        if (s[0] <= s[1]) p.options.alignment = attn::CausalAlignment::bottom_right;
        p.options.scale = s[0] % 2 ? -0.3 : 0.3;  // any finite scale, negative too
      }
      if (variant == 3) {
        p.mask = random_mask(s[0], s[1], rng, 0.3);
        p.options.causal = true;  // top-left: row 0 keeps key 0 only if the mask allows it
        for (Index i = 0; i < s[0]; ++i) (*p.mask)(i, 0) = false;
      }
      for (const attn::TileSizes tiles :
           {attn::TileSizes{1, 1}, attn::TileSizes{3, 4}, attn::TileSizes{16, 7},
            attn::TileSizes{128, 256}})
        check_tiled_equals_naive(p, tiles);
    }
}

TEMPLATE_TEST_CASE("keys forbidden to every query get exactly zero dK and dV", "[backward]",
                   float, double) {
  using T = TestType;
  std::mt19937_64 rng(2603);
  SECTION("padding: keys 4.. forbidden") {
    Problem<T> p = random_problem<T>(6, 9, 3, 2, rng);
    p.mask = attn::padding_mask(6, 9, 4);
    const auto fwd = attn::attention_tiled<T>(p.Q, p.K, p.V, p.mask, p.options);
    for (bool skip : {true, false}) {
      attn::TileSizes tiles{2, 3};
      tiles.skip_forbidden_tiles = skip;
      const auto naive = attn::attention_backward<T>(p.Q, p.K, p.V, p.dO, p.mask);
      const auto tiled = attn::attention_backward_tiled<T>(p.Q, p.K, p.V, fwd.O, fwd.logsumexp,
                                                           p.dO, p.mask, p.options, tiles);
      for (const auto* g : {&naive, &tiled}) {
        CHECK(g->dK.bottomRows(5).cwiseAbs().maxCoeff() == T(0));
        CHECK(g->dV.bottomRows(5).cwiseAbs().maxCoeff() == T(0));
        CHECK(g->dK.topRows(4).cwiseAbs().maxCoeff() > T(0));
      }
    }
  }
  SECTION("top-left causal with T_q < T_v: the last keys are never seen") {
    Problem<T> p = random_problem<T>(3, 7, 2, 4, rng);
    p.options.causal = true;
    const auto fwd = attn::attention_tiled<T>(p.Q, p.K, p.V, p.mask, p.options);
    const auto naive = attn::attention_backward<T>(p.Q, p.K, p.V, p.dO, p.mask, p.options);
    const auto tiled = attn::attention_backward_tiled<T>(p.Q, p.K, p.V, fwd.O, fwd.logsumexp,
                                                         p.dO, p.mask, p.options, {2, 2});
    for (const auto* g : {&naive, &tiled}) {
      CHECK(g->dK.bottomRows(4).cwiseAbs().maxCoeff() == T(0));
      CHECK(g->dV.bottomRows(4).cwiseAbs().maxCoeff() == T(0));
    }
  }
}

TEMPLATE_TEST_CASE("each row of dS sums to zero (the softmax's shift invariance)", "[backward]",
                   float, double) {
  // With dO zero except in row i, dS is zero except in row i, and
  // sum_j dK_j = c (sum_j dS_ij) Q_i: its size is the row sum of dS times
  // |c| |Q_i|. Rounding: each dS_ij carries about (d_v + 2 T_v + d_k + 4) u
  // P_ij |dP_ij - D_i| <= ... 2 G P_ij, summed over j (sum P_ij = 1), and the
  // T_v-term sum of the dK_j; times |c| M_Q, times a safety factor 4.
  using T = TestType;
  std::mt19937_64 rng(2604);
  const T u = std::numeric_limits<T>::epsilon() / 2;
  for (const Index T_v : {1, 5, 40}) {
    Problem<T> p = random_problem<T>(4, T_v, 3, 5, rng);
    p.mask = random_mask(4, T_v, rng, 0.3);
    const auto fwd = attn::attention_tiled<T>(p.Q, p.K, p.V, p.mask, p.options);
    for (Index i = 0; i < 4; ++i) {
      attn::Matrix<T> dO = attn::Matrix<T>::Zero(4, 5);
      dO.row(i) = p.dO.row(i);
      const T G = T(5) * max_abs(p.V) * max_abs(dO);
      const T tol = 4 * max_abs(p.Q) / std::sqrt(T(3)) * 2 * G * u * T(5 + 3 * T_v + 3 + 4);
      const auto naive = attn::attention_backward<T>(p.Q, p.K, p.V, dO, p.mask);
      const auto tiled =
          attn::attention_backward_tiled<T>(p.Q, p.K, p.V, fwd.O, fwd.logsumexp, dO, p.mask,
                                            p.options, {2, 3});
      INFO("T_v = " << T_v << ", row " << i);
      CHECK(naive.dK.colwise().sum().cwiseAbs().maxCoeff() <= tol);
      CHECK(tiled.dK.colwise().sum().cwiseAbs().maxCoeff() <= tol);
    }
  }
}

TEMPLATE_TEST_CASE("the backward passes refuse what the forward refuses", "[backward]", float,
                   double) {
  using T = TestType;
  using M = attn::Matrix<T>;
  std::mt19937_64 rng(2605);
  const Problem<T> p = random_problem<T>(4, 5, 3, 2, rng);
  const auto fwd = attn::attention_tiled<T>(p.Q, p.K, p.V, std::nullopt);
  auto naive = [&](const M& Q, const M& K, const M& V, const M& dO,
                   const std::optional<Mask>& mask, attn::AttentionOptions o = {}) {
    return attn::attention_backward<T>(Q, K, V, dO, mask, o);
  };
  auto tiled = [&](const M& Q, const M& K, const M& V, const M& O, const attn::Vector<T>& L,
                   const M& dO, const std::optional<Mask>& mask, attn::AttentionOptions o = {},
                   attn::TileSizes tiles = {}) {
    return attn::attention_backward_tiled<T>(Q, K, V, O, L, dO, mask, o, tiles);
  };
  SECTION("a fully forbidden row, the lowest one named") {
    Mask mask = Mask::Constant(4, 5, false);
    mask.row(2).setConstant(true);
    mask.row(3).setConstant(true);
    try {
      naive(p.Q, p.K, p.V, p.dO, mask);
      FAIL("attention_backward accepted a fully forbidden row");
    } catch (const attn::FullyMaskedRowError& e) {
      CHECK(e.row() == 2);
    }
    try {
      tiled(p.Q, p.K, p.V, fwd.O, fwd.logsumexp, p.dO, mask);
      FAIL("attention_backward_tiled accepted a fully forbidden row");
    } catch (const attn::FullyMaskedRowError& e) {
      CHECK(e.row() == 2);
      CHECK(std::string(e.what()).find("attention_backward_tiled") != std::string::npos);
    }
    // Bottom-right causal with T_q > T_v: the first T_q - T_v rows see no key.
    attn::AttentionOptions br;
    br.causal = true;
    br.alignment = attn::CausalAlignment::bottom_right;
    const Problem<T> tall = random_problem<T>(6, 4, 3, 2, rng);
    CHECK_THROWS_AS(naive(tall.Q, tall.K, tall.V, tall.dO, std::nullopt, br),
                    attn::FullyMaskedRowError);
    CHECK_THROWS_AS(attn::attention_tiled<T>(tall.Q, tall.K, tall.V, std::nullopt, br),
                    attn::FullyMaskedRowError);
    const M O6 = M::Zero(6, 2);
    const attn::Vector<T> L6 = attn::Vector<T>::Zero(6);
    CHECK_THROWS_AS(tiled(tall.Q, tall.K, tall.V, O6, L6, tall.dO, std::nullopt, br),
                    attn::FullyMaskedRowError);
    // T_v = 0 with T_q > 0.
    CHECK_THROWS_AS(naive(p.Q, M(0, 3), M(0, 2), p.dO, std::nullopt), attn::FullyMaskedRowError);
    CHECK_THROWS_AS(tiled(p.Q, M(0, 3), M(0, 2), fwd.O, fwd.logsumexp, p.dO, std::nullopt),
                    attn::FullyMaskedRowError);
  }
  SECTION("shapes") {
    CHECK_THROWS_AS(naive(p.Q, p.K, p.V, M::Zero(4, 3), std::nullopt), attn::ShapeError);
    CHECK_THROWS_AS(naive(p.Q, M::Zero(5, 2), p.V, p.dO, std::nullopt), attn::ShapeError);
    CHECK_THROWS_AS(naive(p.Q, p.K, M::Zero(4, 2), p.dO, std::nullopt), attn::ShapeError);
    CHECK_THROWS_AS(naive(p.Q, p.K, p.V, p.dO, Mask::Constant(5, 4, false)), attn::ShapeError);
    CHECK_THROWS_AS(tiled(p.Q, p.K, p.V, M::Zero(4, 3), fwd.logsumexp, p.dO, std::nullopt),
                    attn::ShapeError);
    CHECK_THROWS_AS(tiled(p.Q, p.K, p.V, fwd.O, attn::Vector<T>::Zero(3), p.dO, std::nullopt),
                    attn::ShapeError);
    CHECK_THROWS_AS(tiled(p.Q, p.K, p.V, fwd.O, fwd.logsumexp, M::Zero(3, 2), std::nullopt),
                    attn::ShapeError);
    CHECK_THROWS_AS(tiled(p.Q, p.K, p.V, fwd.O, fwd.logsumexp, p.dO, std::nullopt, {},
                          attn::TileSizes{0, 4}),
                    attn::ShapeError);
    try {
      naive(p.Q, p.K, p.V, M::Zero(4, 3), std::nullopt);
    } catch (const attn::ShapeError& e) {
      const std::string what = e.what();
      CHECK(what.find("attention_backward: dO is 4x3 but must be 4x2") != std::string::npos);
    }
  }
  SECTION("NaN and Inf") {
    M bad = p.dO;
    bad(1, 1) = std::numeric_limits<T>::quiet_NaN();
    CHECK_THROWS_AS(naive(p.Q, p.K, p.V, bad, std::nullopt), attn::NonFiniteInputError);
    CHECK_THROWS_AS(tiled(p.Q, p.K, p.V, fwd.O, fwd.logsumexp, bad, std::nullopt),
                    attn::NonFiniteInputError);
    attn::Vector<T> L = fwd.logsumexp;
    L(0) = std::numeric_limits<T>::infinity();
    CHECK_THROWS_AS(tiled(p.Q, p.K, p.V, fwd.O, L, p.dO, std::nullopt),
                    attn::NonFiniteInputError);
    attn::AttentionOptions o;
    o.scale = std::numeric_limits<double>::infinity();
    CHECK_THROWS_AS(naive(p.Q, p.K, p.V, p.dO, std::nullopt, o), attn::NonFiniteInputError);
    CHECK_THROWS_AS(attn::attention_tiled<T>(p.Q, p.K, p.V, std::nullopt, o),
                    attn::NonFiniteInputError);
  }
  SECTION("T_q = 0: no query, zero gradients for K and V") {
    const auto g = naive(M(0, 3), p.K, p.V, M(0, 2), std::nullopt);
    const auto t = tiled(M(0, 3), p.K, p.V, M(0, 2), attn::Vector<T>(0), M(0, 2), std::nullopt);
    for (const auto* r : {&g, &t}) {
      CHECK(r->dQ.rows() == 0);
      CHECK(r->dK == M::Zero(5, 3));
      CHECK(r->dV == M::Zero(5, 2));
    }
  }
}

TEMPLATE_TEST_CASE("attention_tiled with options: the default is bit-identical, scale and causal "
                   "are what they say",
                   "[backward][tiled]", float, double) {
  using T = TestType;
  std::mt19937_64 rng(2606);
  const Problem<T> p = random_problem<T>(9, 11, 4, 3, rng);
  const attn::TileSizes tiles{4, 3};
  const auto plain = attn::attention_tiled<T>(p.Q, p.K, p.V, std::nullopt, tiles);
  const auto with = attn::attention_tiled<T>(p.Q, p.K, p.V, std::nullopt, {}, tiles);
  CHECK(plain.O == with.O);
  CHECK(plain.logsumexp == with.logsumexp);
  // d_k = 4: scale 1 on Q equals the default 1/2 on 2 Q, exactly (powers of two).
  attn::AttentionOptions one;
  one.scale = 1.0;
  const auto scaled = attn::attention_tiled<T>(p.Q, p.K, p.V, std::nullopt, one, tiles);
  const auto doubled = attn::attention_tiled<T>(T(2) * p.Q, p.K, p.V, std::nullopt, tiles);
  CHECK(scaled.O == doubled.O);
  CHECK(scaled.logsumexp == doubled.logsumexp);
  attn::AttentionOptions causal;
  causal.causal = true;
  causal.alignment = attn::CausalAlignment::bottom_right;
  const auto c1 = attn::attention_tiled<T>(p.Q, p.K, p.V, std::nullopt, causal, tiles);
  const auto c2 = attn::attention_tiled<T>(
      p.Q, p.K, p.V, attn::causal_mask(9, 11, attn::CausalAlignment::bottom_right), tiles);
  CHECK(c1.O == c2.O);
  CHECK(c1.logsumexp == c2.logsumexp);
}

TEST_CASE("the backward passes follow the rule for logits", "[backward]") {
  using M = attn::Matrix<double>;
  const M Q = (M(1, 2) << 1e200, 1e200).finished();
  const M V = (M(2, 1) << 5, 7).finished(), dO = (M(1, 1) << 1).finished();
  const attn::Vector<double> L = attn::Vector<double>::Zero(1);
  // Every allowed logit overflows to -Inf: refused, as attention refuses it.
  const M K_low = M::Constant(2, 2, -1e200);
  CHECK_THROWS_AS(attn::attention_backward<double>(Q, K_low, V, dO), attn::NonFiniteInputError);
  CHECK_THROWS_AS(attn::attention_backward_tiled<double>(Q, K_low, V, V.topRows(1), L, dO),
                  attn::NonFiniteInputError);
  // An allowed logit overflowing to +Inf: refused.
  const M K_high = (M(2, 2) << 1e200, 1e200, 1, 1).finished();
  CHECK_THROWS_AS(attn::attention_backward<double>(Q, K_high, V, dO), attn::NonFiniteInputError);
  CHECK_THROWS_AS(attn::attention_backward_tiled<double>(Q, K_high, V, V.topRows(1), L, dO),
                  attn::NonFiniteInputError);
  // The overflowing key forbidden: never read; the one allowed key has P = 1,
  // so dV = dO on it, and every other gradient is exactly 0.
  Mask mask = Mask::Constant(1, 2, false);
  mask(0, 0) = true;
  const auto fwd = attn::attention_tiled<double>(Q, K_high, V, mask);
  CHECK(fwd.O(0, 0) == 7.0);
  const auto naive = attn::attention_backward<double>(Q, K_high, V, dO, mask);
  const auto tiled =
      attn::attention_backward_tiled<double>(Q, K_high, V, fwd.O, fwd.logsumexp, dO, mask);
  for (const auto* g : {&naive, &tiled}) {
    CHECK(g->dV(1, 0) == 1.0);
    CHECK(g->dV(0, 0) == 0.0);
    CHECK(g->dQ.cwiseAbs().maxCoeff() == 0.0);
    CHECK(g->dK.cwiseAbs().maxCoeff() == 0.0);
  }
}

TEST_CASE("attention_backward_tiled leaves the caller's OpenMP team size as it found it",
          "[backward][tiled]") {
  // The pass holds Eigen's products on the calling thread by setting the
  // thread's team size to 1 (src/attention_backward_tiled.cpp, OneThread);
  // the caller's own setting must come back.
  std::mt19937_64 rng(2603);
  const Problem<double> p = random_problem<double>(9, 11, 4, 3, rng);
  const auto fwd = attn::attention_tiled<double>(p.Q, p.K, p.V, p.mask);
  const int before = omp_get_max_threads();
  omp_set_num_threads(3);
  const auto g = attn::attention_backward_tiled<double>(p.Q, p.K, p.V, fwd.O, fwd.logsumexp, p.dO,
                                                        p.mask, attn::AttentionOptions{},
                                                        attn::TileSizes{4, 4});
  CHECK(omp_get_max_threads() == 3);
  omp_set_num_threads(before);
  CHECK(g.dQ.allFinite());
}

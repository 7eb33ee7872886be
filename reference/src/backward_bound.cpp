// The error bound of the backward pass; reference/TOLERANCE.md, "The
// backward pass", has the derivation of each step and the numbering
// (B1)-(B6) used in the comments. Every quantity without a hat is the
// oracle's exact one; E_x is the bound on x's error before the safety factor.
#include "attn/ref/backward_bound.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace attn::ref {

namespace {

double to_d(const Real& x) { return static_cast<double>(x); }

/// A bound as stored: times the safety factor, never NaN (0 * inf).
double finish(double e) {
  return std::isnan(e) ? std::numeric_limits<double>::infinity() : kSafetyFactor * e;
}

/// The bound of a value computed within `e` of the exact `x` once rounded to
/// the storage type: e + v (|x| + e) + eta (TOLERANCE.md (3'); e itself
/// when v = eta = 0, no storage type narrower than the accumulation type).
double stored(double x, double e, const PrecisionModel& p) {
  return e + p.storage_roundoff * (std::abs(x) + e) + p.storage_underflow;
}

/// (B1)-(B4) for query row i: the bounds of dS_ij, given the weights' E_P
/// (row i of EP) and the forward output's E_O (row i of EO), both before
/// the safety factor.
void row_dS(const DMatrix& V, const DMatrix& dO, const ExactGradients& x, const DMatrix& EP,
            const DMatrix& EO, std::ptrdiff_t i, const PrecisionModel& p, DMatrix& EdS) {
  const double u = p.unit_roundoff;
  const std::ptrdiff_t T_v = V.rows(), d_v = V.cols();
  // (B1) dP_ij = sum_l dO_il V_jl: a d_v-term dot product (magnitudes summed
  // in double, within 1 + 2 d_v u).
  const double g_dP = gamma(double(d_v), u) * (1 + 2 * double(d_v) * u);
  std::vector<double> EdP(std::size_t(T_v), 0.0);
  for (std::ptrdiff_t j = 0; j < T_v; ++j) {
    double m = 0;
    for (std::ptrdiff_t l = 0; l < d_v; ++l) m += std::abs(dO(i, l) * V(j, l));
    EdP[std::size_t(j)] = g_dP * m;
  }
  // (B3) D_i two ways, the larger: (DP) sum_j P_ij dP_ij, a T_v-term sum of
  // perturbed products; (DO) sum_l dO_il O_il with the forward's computed O.
  double carried = 0, magnitude = 0;
  for (std::ptrdiff_t j = 0; j < T_v; ++j) {
    const double P = to_d(x.forward.A(i, j)), dP = std::abs(to_d(x.dP(i, j)));
    carried += EP(i, j) * dP + (P + EP(i, j)) * EdP[std::size_t(j)];
    magnitude += (P + EP(i, j)) * (dP + EdP[std::size_t(j)]);
  }
  const double ED_P = (carried + gamma(double(T_v), u) * magnitude) * (1 + 2 * double(T_v) * u);
  carried = magnitude = 0;
  for (std::ptrdiff_t l = 0; l < d_v; ++l) {
    carried += std::abs(dO(i, l)) * EO(i, l);
    magnitude += std::abs(dO(i, l)) * (std::abs(to_d(x.forward.O(i, l))) + EO(i, l));
  }
  const double ED_O = (carried + gamma(double(d_v), u) * magnitude) * (1 + 2 * double(d_v) * u);
  const double ED = std::max(ED_P, ED_O);
  // (B4) dS_ij = P_ij (dP_ij - D_i): a subtraction and a product, then
  // perhaps the storage type before the products with K and Q.
  for (std::ptrdiff_t j = 0; j < T_v; ++j) {
    if (!x.forward.allowed(i, j)) {
      EdS(i, j) = 0;  // P_ij = 0 exactly (Lemma 2), so dS_ij = 0 exactly
      continue;
    }
    const double P = to_d(x.forward.A(i, j)), g = std::abs(to_d(x.dP(i, j) - x.D[std::size_t(i)]));
    double Eg = EdP[std::size_t(j)] + ED;
    Eg += u * (g + Eg);
    const double e = EP(i, j) * g + (P + EP(i, j)) * Eg + u * (P + EP(i, j)) * (g + Eg);
    EdS(i, j) = stored(P * g, e, p);
  }
}

/// (B5)/(B6) one entry of a product, sum_k a(k) b(k) times c >= 0, whose
/// exact value is `x`: a(k) exact and computed within ea(k), b(k) an input
/// (exact), n terms in any order, a scale costing `scale_roundings`, then
/// rounded to the storage type.
template <class Exact, class Err, class In>
double product_entry(double x, std::ptrdiff_t n, Exact a, Err ea, In b, double c,
                     int scale_roundings, const PrecisionModel& p) {
  const double u = p.unit_roundoff;
  double carried = 0, magnitude = 0;
  for (std::ptrdiff_t k = 0; k < n; ++k) {
    carried += ea(k) * std::abs(b(k));
    magnitude += (std::abs(a(k)) + ea(k)) * std::abs(b(k));
  }
  const double g = gamma(double(n + scale_roundings), u);
  const double e = c * (carried + g * magnitude) * (1 + 2 * double(n) * u);
  // Stored: v |computed| + eta with |computed| <= |x| + e; a sum of exact
  // zeros (a key no query sees) is exactly 0 in every type.
  return magnitude == 0 ? 0.0 : stored(x, e, p);
}

}  // namespace

AttentionBackwardBound attention_backward_error_bound(const DMatrix& Q, const DMatrix& K,
                                                      const DMatrix& V, const DMatrix& dO,
                                                      const ExactGradients& exact,
                                                      const PrecisionModel& p,
                                                      std::optional<double> scale) {
  const std::ptrdiff_t T_q = Q.rows(), T_v = K.rows(), d_k = Q.cols(), d_v = V.cols();
  if (exact.dS.rows != T_q || exact.dS.cols != T_v || exact.dQ.cols != d_k || exact.dV.cols != d_v ||
      dO.rows() != T_q || dO.cols() != d_v)
    throw std::invalid_argument(
        "attention_backward_error_bound: Q, K, V, dO are not the inputs of `exact` (shapes differ)");
  // (B2) the weights: a softmax of the forward's class (naive), or
  // recomputed from the logits and the saved logsumexp (5L), the larger.
  // (B3) O as the forward's class computes it (for D = rowsum(dO o O)).
  PrecisionModel recomputed = p;
  recomputed.recomputed_weights = true;
  const DMatrix EP = attention_error_bound(Q, K, V, exact.forward, recomputed, scale).A / kSafetyFactor;
  const DMatrix EO = attention_error_bound(Q, K, V, exact.forward, p, scale).O / kSafetyFactor;
  AttentionBackwardBound b;
  DMatrix EdS = DMatrix::Zero(T_q, T_v);
  for (std::ptrdiff_t i = 0; i < T_q; ++i) row_dS(V, dO, exact, EP, EO, i, p, EdS);
  b.P = (EP * kSafetyFactor).eval();
  b.dS = (EdS * kSafetyFactor).eval();
  // (B6) the scale: 1/sqrt(d_k) (a square root and a division, or a
  // reciprocal and a product) or a given c (one product), applied to dS,
  // K, Q or the result in the accumulation type: three roundings at most.
  const double c = scale ? std::abs(*scale) : 1 / std::sqrt(double(d_k));
  b.dQ = DMatrix::Zero(T_q, d_k);
  b.dK = DMatrix::Zero(T_v, d_k);
  b.dV = DMatrix::Zero(T_v, d_v);
  const RealMatrix& P = exact.forward.A;
  const RealMatrix& dS = exact.dS;
  for (std::ptrdiff_t i = 0; i < T_q; ++i)
    for (std::ptrdiff_t r = 0; r < d_k; ++r)
      b.dQ(i, r) = finish(product_entry(
          to_d(exact.dQ(i, r)), T_v, [&](auto j) { return to_d(dS(i, j)); }, [&](auto j) { return EdS(i, j); },
          [&](auto j) { return K(j, r); }, c, 3, p));
  for (std::ptrdiff_t j = 0; j < T_v; ++j) {
    for (std::ptrdiff_t r = 0; r < d_k; ++r)
      b.dK(j, r) = finish(product_entry(
          to_d(exact.dK(j, r)), T_q, [&](auto i) { return to_d(dS(i, j)); }, [&](auto i) { return EdS(i, j); },
          [&](auto i) { return Q(i, r); }, c, 3, p));
    // (B5) dV = P^T dO: a T_q-term sum, no scale.
    for (std::ptrdiff_t l = 0; l < d_v; ++l)
      b.dV(j, l) = finish(product_entry(
          to_d(exact.dV(j, l)), T_q, [&](auto i) { return to_d(P(i, j)); }, [&](auto i) { return EP(i, j); },
          [&](auto i) { return dO(i, l); }, 1.0, 0, p));
  }
  return b;
}

}  // namespace attn::ref

// The error-bound model; see reference/TOLERANCE.md for the derivation of
// each step and the numbering (1)-(7) used in the comments.
#include "attn/ref/error_bound.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn::ref {

double gamma(double n, double u) {
  const double nu = n * u;
  return nu < 1 ? nu / (1 - nu) : std::numeric_limits<double>::infinity();
}

namespace {

/// Steps (2)-(5) for the softmax of one row given per-logit error bounds e_j.
/// Fills A-bounds for the row and returns the logsumexp bound.
double softmax_row_bound(const RealMatrix& S, const RealMatrix& A, const BoolMatrix& allowed,
                         std::ptrdiff_t i, const std::vector<double>& e, double lse,
                         const PrecisionModel& p, DMatrix& EA) {
  const double u = p.unit_roundoff;
  const std::ptrdiff_t T_v = S.cols;
  // m = max over allowed exact logits; t_j = s_j - m <= 0; W = max |t_j|.
  bool any = false;
  Real m = 0;
  for (std::ptrdiff_t j = 0; j < T_v; ++j)
    if (allowed(i, j) && (!any || S(i, j) > m)) m = S(i, j), any = true;
  double e_max = 0, W = 0;
  std::ptrdiff_t n = 0;
  for (std::ptrdiff_t j = 0; j < T_v; ++j)
    if (allowed(i, j)) {
      e_max = std::max(e_max, e[std::size_t(j)]);
      W = std::max(W, static_cast<double>(m - S(i, j)));
      ++n;
    }
  // (2) perturbation of each exp argument; (2') online rescaling.
  // (3) rho_j: relative error of the computed exponential (exp within 1 ulp = 2u).
  std::vector<double> rho(std::size_t(T_v), 0.0);
  double rho_weighted = 0, rho_max = 0, tau_max = 0;
  for (std::ptrdiff_t j = 0; j < T_v; ++j) {
    if (!allowed(i, j)) continue;
    const double t = static_cast<double>(m - S(i, j));
    double tau = e[std::size_t(j)] + u * (t + 2 * e_max);
    if (p.online_rescales > 0) tau += u * (W + 2.0 * p.online_rescales);
    tau_max = std::max(tau_max, tau);
    rho[std::size_t(j)] = std::expm1(tau) * (1 + 2 * u) + 2 * u;
    // An infinite relative error makes the weighted sum infinite even where the
    // exact weight rounds to 0 in double (0 * inf would give NaN).
    rho_weighted += std::isinf(rho[std::size_t(j)]) ? rho[std::size_t(j)]
                                                    : static_cast<double>(A(i, j)) * rho[std::size_t(j)];
    rho_max = std::max(rho_max, rho[std::size_t(j)]);
  }
  // (4) the normaliser Z: weighted perturbation plus n - 1 additions.
  const double rho_Z = rho_weighted + gamma(double(std::max<std::ptrdiff_t>(n - 1, 0)), u) * (1 + rho_max);
  // (5) each weight: p_j / Z with one more rounding (or two, via a reciprocal).
  const double underflow = double(n + 1) * p.smallest_normal;
  for (std::ptrdiff_t j = 0; j < T_v; ++j) {
    if (!allowed(i, j)) {
      EA(i, j) = 0;  // Lemma 2: forbidden weights must be exactly zero.
      continue;
    }
    const double a = static_cast<double>(A(i, j));
    // Past rho_Z >= 1/2 the analysis says nothing useful: any weight in [0, 1] is allowed.
    const double r = rho_Z < 0.5 ? (1 + rho[std::size_t(j)]) * (1 + 2 * u) / (1 - rho_Z) - 1
                                 : std::numeric_limits<double>::infinity();
    EA(i, j) = std::isinf(r) ? 1.0 : std::min(kSafetyFactor * (a * r + underflow), 1.0);
  }
  // (7) logsumexp = m + log Z. log-sum-exp is 1-Lipschitz in the max norm, so
  // perturbed arguments move it by at most tau_max; the computed max cancels;
  // then the exponentials (2u), the sum, the log and the final addition.
  const double log_Z = lse - static_cast<double>(m);
  const double g = gamma(double(std::max<std::ptrdiff_t>(n - 1, 0)), u);
  return kSafetyFactor * (tau_max + 2 * u + g + 2 * u * std::abs(log_Z) + u * std::abs(lse));
}

}  // namespace

AttentionBound attention_error_bound(const DMatrix& Q, const DMatrix& K, const DMatrix& V,
                                     const ExactAttention& exact, const PrecisionModel& p) {
  const double u = p.unit_roundoff;
  const std::ptrdiff_t T_q = Q.rows(), T_v = K.rows(), d_k = Q.cols(), d_v = V.cols();
  AttentionBound b;
  b.S = DMatrix::Zero(T_q, T_v);
  b.A = DMatrix::Zero(T_q, T_v);
  b.O = DMatrix::Zero(T_q, d_v);
  b.logsumexp.assign(std::size_t(T_q), 0.0);
  // (1) logits: a d_k-term dot product, then the scale by sqrt(d_k) (a square
  // root and a division, or a reciprocal and a product): gamma_{d_k + 3}.
  const double g_dot = gamma(double(d_k + 3), u);
  const double root_dk = std::sqrt(double(d_k));
  std::vector<double> e(static_cast<std::size_t>(T_v));
  for (std::ptrdiff_t i = 0; i < T_q; ++i) {
    for (std::ptrdiff_t j = 0; j < T_v; ++j) {
      double abs_dot = 0;
      for (std::ptrdiff_t r = 0; r < d_k; ++r) abs_dot += std::abs(Q(i, r) * K(j, r));
      // abs_dot is itself rounded; (1 + 2 d_k u) covers that.
      e[std::size_t(j)] = g_dot * abs_dot / root_dk * (1 + 2 * double(d_k) * u);
      b.S(i, j) = kSafetyFactor * e[std::size_t(j)];
    }
    b.logsumexp[std::size_t(i)] =
        softmax_row_bound(exact.S, exact.A, exact.allowed, i, e,
                          static_cast<double>(exact.logsumexp[std::size_t(i)]), p, b.A);
    // (6) O = A V: the weights' errors carried through V, plus a T_v-term
    // sum (and the final division by the running sum in the online form).
    const double g_sum = gamma(double(T_v + 2), u);
    for (std::ptrdiff_t l = 0; l < d_v; ++l) {
      double carried = 0, magnitude = 0;
      for (std::ptrdiff_t j = 0; j < T_v; ++j) {
        const double v = std::abs(V(j, l));
        const double ea = b.A(i, j) / kSafetyFactor;
        carried += ea * v;
        magnitude += (static_cast<double>(exact.A(i, j)) + ea) * v;
      }
      b.O(i, l) = kSafetyFactor * (carried + g_sum * magnitude) * (1 + 2 * double(T_v) * u);
    }
  }
  return b;
}

AttentionBound softmax_error_bound(const ExactSoftmax& exact, const PrecisionModel& p) {
  const std::ptrdiff_t T_q = exact.S.rows, T_v = exact.S.cols;
  AttentionBound b;
  b.A = DMatrix::Zero(T_q, T_v);
  b.logsumexp.assign(std::size_t(T_q), 0.0);
  const std::vector<double> e(static_cast<std::size_t>(T_v), 0.0);  // the logits are given exactly
  for (std::ptrdiff_t i = 0; i < T_q; ++i)
    b.logsumexp[std::size_t(i)] =
        softmax_row_bound(exact.S, exact.A, exact.allowed, i, e,
                          static_cast<double>(exact.logsumexp[std::size_t(i)]), p, b.A);
  return b;
}

double row_sum_bound(std::ptrdiff_t T_v, const PrecisionModel& p) {
  const double u = p.unit_roundoff;
  const double g = gamma(double(std::max<std::ptrdiff_t>(T_v - 1, 0)), u);
  return kSafetyFactor * (2 * u + g) / (1 - g);
}

}  // namespace attn::ref

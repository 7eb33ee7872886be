// The error-bound model; see reference/TOLERANCE.md for the derivation of
// each step and the numbering (1)-(7) used in the comments.
#include "attn/ref/error_bound.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace attn::ref {

PrecisionModel PrecisionModel::for_formats(NumberFormat storage, NumberFormat accumulate) {
  if (!format_covers(accumulate, storage))
    throw std::invalid_argument(std::string("PrecisionModel::for_formats: accumulation type ") +
                                format_name(accumulate) + " does not cover storage type " +
                                format_name(storage));
  PrecisionModel p{format_unit_roundoff(accumulate), format_smallest_normal(accumulate), 0};
  if (storage != accumulate) {
    p.storage_roundoff = format_unit_roundoff(storage);
    // Gradual underflow (IEEE 754's default): rounding into the subnormal
    // range loses at most half its spacing, u * realmin (TOLERANCE.md (3')).
    p.storage_underflow = format_unit_roundoff(storage) * format_smallest_normal(storage);
  }
  return p;
}

double gamma(double n, double u) {
  const double nu = n * u;
  return nu < 1 ? nu / (1 - nu) : std::numeric_limits<double>::infinity();
}

namespace {

/// Steps (2)-(5) and (7) for the softmax of one row given per-logit error
/// bounds e_j: fills the row's A-bounds in EA, its row-sum bound in
/// row_sum, and returns its logsumexp bound (all times kSafetyFactor).
/// Both forms of the weights are covered (TOLERANCE.md, "The class of
/// algorithms"): (D) p_j / Z and (L) exp(s_j - logsumexp).
double softmax_row_bound(const RealMatrix& S, const RealMatrix& A, const BoolMatrix& allowed,
                         std::ptrdiff_t i, const std::vector<double>& e, double lse,
                         const PrecisionModel& p, DMatrix& EA, double& row_sum) {
  const double u = p.unit_roundoff;
  // exp and log are within kElementaryUlps ulps: a relative error of 2 kElementaryUlps u.
  const double ue = 2 * kElementaryUlps * u;
  // (3') and (5'): the extra rounding to a narrower storage type (0 without one).
  const double v = p.storage_roundoff, eta = p.storage_underflow;
  const std::ptrdiff_t T_v = S.cols;
  // m = max over allowed exact logits; t_j = m - s_j >= 0; W = max t_j.
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
  // (3) rho_j: relative error of the computed exponential.
  std::vector<double> rho(std::size_t(T_v), 0.0);
  double rho_weighted = 0, rho_max = 0, tau_max = 0;
  for (std::ptrdiff_t j = 0; j < T_v; ++j) {
    if (!allowed(i, j)) continue;
    const double t = static_cast<double>(m - S(i, j));
    double tau = e[std::size_t(j)] + u * (t + 2 * e_max);
    if (p.online_rescales > 0) tau += u * (W + 2.0 * p.online_rescales);
    tau_max = std::max(tau_max, tau);
    rho[std::size_t(j)] = std::expm1(tau) * (1 + ue) + ue;
    // (3') P_j rounded to the storage type before the sum and P V.
    if (v > 0) rho[std::size_t(j)] += v * (1 + rho[std::size_t(j)]);
    // An infinite relative error makes the weighted sum infinite even where the
    // exact weight rounds to 0 in double (0 * inf would give NaN).
    rho_weighted += std::isinf(rho[std::size_t(j)]) ? rho[std::size_t(j)]
                                                    : static_cast<double>(A(i, j)) * rho[std::size_t(j)];
    rho_max = std::max(rho_max, rho[std::size_t(j)]);
  }
  const double g = gamma(double(std::max<std::ptrdiff_t>(n - 1, 0)), u);
  // (7) logsumexp = m + log Z. log-sum-exp is 1-Lipschitz in the max norm, so
  // perturbed arguments move it by at most tau_max; the computed max cancels;
  // then the exponentials, the sum, the log and the final addition.
  // (7') a normaliser summed from the stored P_j: log(1 + theta), theta <= v + n eta.
  const double log_Z = lse - static_cast<double>(m);
  const double theta = v + double(n) * eta;
  const double lambda = tau_max + ue + g + ue * std::abs(log_Z) + u * std::abs(lse) + theta / (1 - theta);
  // (4) the normaliser Z: weighted perturbation plus n - 1 additions.
  // (4') each stored P_j may have underflowed by eta; the exact Z is >= 1.
  const double rho_Z = rho_weighted + g * (1 + rho_max) + double(n) * eta;
  // (5) each weight, the larger of the two forms' relative errors:
  // (D) p_j / Z with one more rounding (or two, via a reciprocal), and
  // (5') the weight rounded to the storage type: one more (1 + v);
  // (L) exp(x_j) with x_j = s_j - lse computed from a logsumexp within
  // lambda, either as s_j - lse or as (s_j - m) - log Z (5L), then stored.
  const double underflow = double(n + 1) * p.smallest_normal;
  // (5L) holds only while the computed logsumexp is within a quarter of the
  // exact one; beyond (|lse| of about 1/(4u)) that form's weights carry no
  // correct bit (a row of two equal logits at -2e20 in double gives weights
  // 1 and 1), and the divide form's bound alone applies.
  const bool lse_form = lambda < kLogsumexpFormLimit;
  double sum_L = 0;
  for (std::ptrdiff_t j = 0; j < T_v; ++j) {
    if (!allowed(i, j)) {
      EA(i, j) = 0;  // Lemma 2: forbidden weights must be exactly zero.
      continue;
    }
    const double a = static_cast<double>(A(i, j));
    const double t = static_cast<double>(m - S(i, j));
    const double x = t + log_Z;  // |s_j - lse|
    const double delta = e[std::size_t(j)] + 2 * e_max + lambda + u * (x + t + 2 * e_max + lambda);
    const double r_L = ((std::expm1(delta) * (1 + ue) + ue) + 1) * (1 + v) * (1 + v) - 1;
    // Past rho_Z >= 1/2 the analysis of (D) says nothing useful: any weight in [0, 1].
    const double r_D = rho_Z < 0.5 ? (1 + rho[std::size_t(j)]) * (1 + 2 * u) * (1 + v) / (1 - rho_Z) - 1
                                   : std::numeric_limits<double>::infinity();
    const double r = lse_form ? std::max(r_D, r_L) : r_D;
    EA(i, j) = std::isinf(r) ? 1.0 : std::min(kSafetyFactor * (a * r + underflow + 3 * eta), 1.0);
    sum_L += a * std::min(r_L, 1e300);  // a weight that underflowed to 0 adds nothing
  }
  // (8) A row with one allowed key j: every algorithm of the class computes
  // exp(s_j - m) = exp(+0) = 1 exactly (IEEE 754 and C Annex F, F.10.3.1),
  // the forbidden terms exactly 0, and 1 / 1, 1 * (1 / 1) or exp(s_j - (m +
  // log 1)) exactly 1, whatever the logit's own error: the weights are exact
  // ("Rows with one allowed key" in TOLERANCE.md). Weights recomputed from a
  // saved logsumexp and logits computed again are not: (5L) holds for them.
  if (n == 1 && !p.recomputed_weights) {
    for (std::ptrdiff_t j = 0; j < T_v; ++j) EA(i, j) = 0;
    row_sum = 0;
    return kSafetyFactor * lambda;
  }
  // Row sums: (D) is independent of the exponentials' errors ("Row sums");
  // (L) each weight carries its own error, summed with the weights.
  // gamma_{n-1} >= 1 (n u >= 1: a long row in a 16-bit accumulation type): no bound.
  const double sum_D = g < 1 ? (2 * u + g) / (1 - g) + (1 + 2 * u) * v * (2 + v) / (1 - g) + 2 * double(n) * eta
                             : std::numeric_limits<double>::infinity();
  row_sum = kSafetyFactor * (lse_form ? std::max(sum_D, sum_L + underflow + 3 * double(n) * eta) : sum_D);
  return kSafetyFactor * lambda;
}

}  // namespace

AttentionBound attention_error_bound(const DMatrix& Q, const DMatrix& K, const DMatrix& V,
                                     const ExactAttention& exact, const PrecisionModel& p,
                                     std::optional<double> scale) {
  const double u = p.unit_roundoff;
  const std::ptrdiff_t T_q = Q.rows(), T_v = K.rows(), d_k = Q.cols(), d_v = V.cols();
  AttentionBound b;
  b.S = DMatrix::Zero(T_q, T_v);
  b.A = DMatrix::Zero(T_q, T_v);
  b.O = DMatrix::Zero(T_q, d_v);
  b.logsumexp.assign(std::size_t(T_q), 0.0);
  b.row_sum.assign(std::size_t(T_q), 0.0);
  // (1) logits: a d_k-term dot product, then the scale by sqrt(d_k) (a square
  // root and a division, or a reciprocal and a product): gamma_{d_k + 3}.
  // An explicit scale is one product, within the same gamma_{d_k + 3}.
  const double g_dot = gamma(double(d_k + 3), u);
  const double root_dk = std::sqrt(double(d_k));
  std::vector<double> e(static_cast<std::size_t>(T_v));
  for (std::ptrdiff_t i = 0; i < T_q; ++i) {
    for (std::ptrdiff_t j = 0; j < T_v; ++j) {
      double abs_dot = 0;
      for (std::ptrdiff_t r = 0; r < d_k; ++r) abs_dot += std::abs(Q(i, r) * K(j, r));
      const double magnitude = scale ? abs_dot * std::abs(*scale) : abs_dot / root_dk;
      // magnitude is itself rounded; (1 + 2 d_k u) covers that.
      e[std::size_t(j)] = g_dot * magnitude * (1 + 2 * double(d_k) * u);
      b.S(i, j) = kSafetyFactor * e[std::size_t(j)];
    }
    b.logsumexp[std::size_t(i)] =
        softmax_row_bound(exact.S, exact.A, exact.allowed, i, e,
                          static_cast<double>(exact.logsumexp[std::size_t(i)]), p, b.A,
                          b.row_sum[std::size_t(i)]);
    // (6) O = A V: the weights' errors carried through V, plus a T_v-term
    // sum (and the final division by the running sum in the online form).
    // (8) with one allowed key the weights are exactly 0 and 1: O's row is
    // that key's row of V (a one-term sum, no division left), rounded at most
    // once to the storage type.
    std::ptrdiff_t n_allowed = 0;
    for (std::ptrdiff_t j = 0; j < T_v; ++j) n_allowed += exact.allowed(i, j) ? 1 : 0;
    const double g_sum = n_allowed == 1 ? 0.0 : gamma(double(T_v + 2), u);
    for (std::ptrdiff_t l = 0; l < d_v; ++l) {
      double carried = 0, magnitude = 0;
      for (std::ptrdiff_t j = 0; j < T_v; ++j) {
        const double v = std::abs(V(j, l));
        const double ea = b.A(i, j) / kSafetyFactor;
        carried += ea * v;
        magnitude += (static_cast<double>(exact.A(i, j)) + ea) * v;
      }
      // (6') O rounded to the storage type: v |o| + eta, |o| <= (1 + g_sum) magnitude.
      // gamma_{T_v + 2} may be infinite (T_v u >= 1): then so is the bound
      // (never 0 * inf = NaN from a storage term that is 0).
      const double stored = p.storage_roundoff > 0 ? p.storage_roundoff * (1 + g_sum) * magnitude : 0.0;
      const double o = n_allowed == 1
                           ? kSafetyFactor * (stored + p.storage_underflow)
                           : kSafetyFactor * ((carried + g_sum * magnitude) * (1 + 2 * double(T_v) * u) +
                                              (stored + p.storage_underflow));
      b.O(i, l) = std::isnan(o) ? std::numeric_limits<double>::infinity() : o;
    }
  }
  return b;
}

AttentionBound softmax_error_bound(const ExactSoftmax& exact, const PrecisionModel& p) {
  const std::ptrdiff_t T_q = exact.S.rows, T_v = exact.S.cols;
  AttentionBound b;
  b.A = DMatrix::Zero(T_q, T_v);
  b.logsumexp.assign(std::size_t(T_q), 0.0);
  b.row_sum.assign(std::size_t(T_q), 0.0);
  const std::vector<double> e(static_cast<std::size_t>(T_v), 0.0);  // the logits are given exactly
  for (std::ptrdiff_t i = 0; i < T_q; ++i)
    b.logsumexp[std::size_t(i)] =
        softmax_row_bound(exact.S, exact.A, exact.allowed, i, e,
                          static_cast<double>(exact.logsumexp[std::size_t(i)]), p, b.A,
                          b.row_sum[std::size_t(i)]);
  return b;
}

}  // namespace attn::ref

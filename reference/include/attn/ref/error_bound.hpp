#pragma once
// The a-priori error-bound model (reference/TOLERANCE.md has the derivation).
//
// For a subject that declares unit roundoff u, every compared entry gets a
// bound from standard rounding-error analysis (Higham, "Accuracy and
// Stability of Numerical Algorithms", 2nd ed., ch. 3: gamma_n = n u/(1 - n u)
// for an n-term dot product), the shifted-softmax analysis of Blanchard,
// Higham & Higham, IMA J. Numer. Anal. 41(4), 2021, and the product A V,
// multiplied by one stated safety factor. The bound is evaluated from the
// oracle's exact quantities, so it is as tight as the analysis allows.

#include <vector>

#include "attn/ref/number_format.hpp"
#include "attn/ref/oracle.hpp"

namespace attn::ref {

/// What the subject declares about its arithmetic.
struct PrecisionModel {
  /// Unit roundoff of the accumulation type (logits, max, exp, sums):
  /// 2^-24 (float) or 2^-53 (double), the only type when storage = accumulation.
  double unit_roundoff = 0x1p-53;
  /// Smallest positive normal number of the accumulation type (underflow term).
  double smallest_normal = 0x1p-1022;
  /// Rescalings of a running sum per row (an online softmax over key tiles
  /// does one per tile after the first); 0 for the naive algorithm.
  int online_rescales = 0;
  /// Unit roundoff of the extra rounding to a narrower storage type (the
  /// weights P before P V, the returned A and O): 2^-11 (float16), 2^-8
  /// (bfloat16); 0 when the storage type is the accumulation type (a value
  /// already in the type is not rounded again). TOLERANCE.md, "Storage and
  /// accumulation types".
  double storage_roundoff = 0;
  /// Absolute error of an underflow in that rounding (gradual underflow: half
  /// the subnormal spacing, u realmin): 2^-25 (float16), 2^-134 (bfloat16);
  /// 0 with storage_roundoff.
  double storage_underflow = 0;
  /// The weights are recomputed from logits computed again and a saved
  /// logsumexp, P = exp(S - logsumexp) (a backward pass in FlashAttention-2's
  /// order): a row with one allowed key no longer gets exactly 1 (rule (8)
  /// does not apply), its weight carries the logsumexp form's error (5L).
  /// TOLERANCE.md, "The backward pass".
  bool recomputed_weights = false;

  static PrecisionModel for_float() { return {0x1p-24, 0x1p-126, 0}; }
  static PrecisionModel for_double() { return {0x1p-53, 0x1p-1022, 0}; }
  /// Inputs and outputs in `storage`, arithmetic in `accumulate` (which must
  /// cover it: format_covers; throws std::invalid_argument otherwise).
  /// for_formats(float32, float32) == for_float(), likewise for float64.
  static PrecisionModel for_formats(NumberFormat storage, NumberFormat accumulate);
};

/// The one safety factor applied to every bound (TOLERANCE.md says why 2).
inline constexpr double kSafetyFactor = 2.0;

/// How far exp and log may be from the exact value, in units in the last
/// place of the result (relative 2 kElementaryUlps u): glibc's are within 1,
/// vectorised kernels within a few (Eigen 3.4's float exp with AVX-512 was
/// measured at 4.5 ulp; TOLERANCE.md, (3)).
inline constexpr double kElementaryUlps = 5.0;

/// The logsumexp form of the weights, exp(s_j - lse), is admitted while the
/// computed logsumexp is within this of the exact one (TOLERANCE.md, (5L)).
inline constexpr double kLogsumexpFormLimit = 0.25;

/// gamma_n = n u / (1 - n u) (Higham, Lemma 3.1); +Inf if n u >= 1.
double gamma(double n, double u);

/// Per-entry bounds on |computed - exact|, already times kSafetyFactor.
struct AttentionBound {
  DMatrix S;  ///< T_q x T_v, logits
  DMatrix A;  ///< T_q x T_v, weights (0 where forbidden: zeros must be exact)
  DMatrix O;  ///< T_q x d_v, outputs
  std::vector<double> logsumexp;  ///< per query row
  /// Per query row: bound on |sum_j A_ij - 1| for the computed weights, the
  /// row sum itself evaluated exactly ("Row sums" in TOLERANCE.md: the larger
  /// of the divide form's and the logsumexp form's).
  std::vector<double> row_sum;
};

/// Bounds for attention(Q, K, V, mask) computed in the declared precision.
/// `exact` must be exact_attention(Q, K, V, mask, scale); `scale` as there
/// (nullopt: 1/sqrt(d_k)). An explicit scale costs the logits one rounding
/// (a product) where 1/sqrt(d_k) costs at most three, so step (1)'s
/// gamma_{d_k + 3} covers both; the dot product's magnitude is multiplied
/// by |scale| instead of divided by sqrt(d_k) (TOLERANCE.md, (1)).
AttentionBound attention_error_bound(const DMatrix& Q, const DMatrix& K, const DMatrix& V,
                                     const ExactAttention& exact, const PrecisionModel& p,
                                     std::optional<double> scale = std::nullopt);

/// Bounds for a softmax of given logits (no logit error), e.g. F1/F2.
/// Only A, logsumexp and row_sum are filled.
AttentionBound softmax_error_bound(const ExactSoftmax& exact, const PrecisionModel& p);


}  // namespace attn::ref

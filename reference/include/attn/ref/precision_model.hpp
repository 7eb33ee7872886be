#pragma once
// What a computation declares about its arithmetic, and the constants of the
// a-priori error-bound model (reference/TOLERANCE.md has the derivation).
// Kept apart from error_bound.hpp so that code which only names a precision
// (the grader, the subjects) does not parse the 50-digit oracle's headers.

#include "attn/ref/number_format.hpp"

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

}  // namespace attn::ref

#pragma once
// The oracle's second tier (reference/TOLERANCE.md, "Two tiers"): the text's
// stable softmax (section 32.2.4) computed in long double, for cases too
// large for 50 digits (long rows: T_v in the thousands). It is itself an
// algorithm of the class the bound model covers, so its own distance from
// the exact values is bounded by attention_error_bound / softmax_error_bound
// with PrecisionModel::for_extended(); a comparison against it adds that
// bound to the subject's. With the x87 80-bit long double (u = 2^-64) that
// is 1/2048 of a double subject's bound; where long double is double it is
// a double subject's bound again (sound, twice as loose).

#include <optional>

#include "attn/ref/error_bound.hpp"
#include "attn/ref/oracle.hpp"

namespace attn::ref {

/// exact_attention's contract (shapes, refusals, `scale`), computed in long
/// double: S, A, O and logsumexp are within the bound of for_extended() of
/// the exact ones (the result's Real entries hold the long double values).
ExactAttention extended_attention(const DMatrix& Q, const DMatrix& K, const DMatrix& V,
                                  const std::optional<BoolMatrix>& mask,
                                  std::optional<double> scale = std::nullopt);

/// exact_masked_softmax's contract, computed in long double.
ExactSoftmax extended_masked_softmax(const DMatrix& S, const std::optional<BoolMatrix>& mask);

/// The arithmetic of extended_attention: long double's unit roundoff and
/// smallest normal (std::numeric_limits<long double>).
PrecisionModel extended_precision();

/// Whether a case of these sizes is judged by the second tier: its 50-digit
/// evaluation would take more than about T_q T_v (d_k + d_v) = 2^17 products
/// (some 50 ms; TOLERANCE.md, "Two tiers").
bool uses_extended_tier(std::ptrdiff_t T_q, std::ptrdiff_t T_v, std::ptrdiff_t d_k,
                        std::ptrdiff_t d_v) noexcept;

/// Entry-wise sum of two bounds of the same case (a subject's and the
/// second tier's own); the fields present in both are added.
AttentionBound add_bounds(AttentionBound a, const AttentionBound& b);

}  // namespace attn::ref

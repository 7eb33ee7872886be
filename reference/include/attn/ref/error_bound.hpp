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
#include "attn/ref/precision_model.hpp"

namespace attn::ref {

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

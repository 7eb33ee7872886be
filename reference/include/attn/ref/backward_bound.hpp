#pragma once
// The a-priori error bound of the backward pass of attention: per-entry
// bounds on dQ, dK and dV for the class of algorithms that compute them
// (reference/TOLERANCE.md, "The backward pass", steps (B1)-(B6)), evaluated
// from the 50-digit oracle's exact intermediates (exact_attention_backward).

#include <optional>

#include "attn/ref/error_bound.hpp"
#include "attn/ref/oracle_backward.hpp"

namespace attn::ref {

/// Per-entry bounds on |computed - exact|, already times kSafetyFactor.
struct AttentionBackwardBound {
  DMatrix P;   ///< T_q x T_v, the weights as the backward uses them (B2); 0 where forbidden
  DMatrix dS;  ///< T_q x T_v, dS = P o (dP - D 1^T) (B4); 0 where forbidden
  DMatrix dQ;  ///< T_q x d_k
  DMatrix dK;  ///< T_v x d_k (0 for a key forbidden to every query: exact zeros)
  DMatrix dV;  ///< T_v x d_v (likewise)
};

/// Bounds for the backward pass computed in the declared precision by any
/// algorithm of the class of TOLERANCE.md, "The backward pass": the naive
/// form (P formed by a softmax of the forward's class, D = rowsum(dP o P)
/// or rowsum(dO o O)) and the recomputing form (P = exp(S - logsumexp)
/// from logits computed again and the forward's logsumexp, within (7), in
/// FlashAttention-2's order, any tiles and summation order). The forward
/// whose O and logsumexp a recomputing backward reads is the one `p`
/// describes (p.online_rescales for an online forward).
///
/// Q: T_q x d_k, K: T_v x d_k, V: T_v x d_v, dO: T_q x d_v, the inputs
/// `exact` was computed from: exact must be exact_attention_backward(Q, K,
/// V, dO, mask, scale) with the same `scale` (nullopt: 1/sqrt(d_k)).
/// Throws std::invalid_argument when the shapes disagree with `exact`.
AttentionBackwardBound attention_backward_error_bound(const DMatrix& Q, const DMatrix& K,
                                                      const DMatrix& V, const DMatrix& dO,
                                                      const ExactGradients& exact,
                                                      const PrecisionModel& p,
                                                      std::optional<double> scale = std::nullopt);

}  // namespace attn::ref

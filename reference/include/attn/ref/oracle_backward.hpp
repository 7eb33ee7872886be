#pragma once
// The oracle for the backward pass of attention: dQ, dK and dV of the loss
// whose gradient with respect to O is dO, in 50-digit arithmetic from the
// definition (the chain rule through O = P V and the softmax). Like
// oracle.hpp it shares no code with lib/.

#include <optional>
#include <vector>

#include "attn/ref/oracle.hpp"
#include "attn/ref/real.hpp"

namespace attn::ref {

/// Everything the oracle knows about one backward call.
struct ExactGradients {
  ExactAttention forward;  ///< S, A (= P), O, logsumexp, allowed: exact_attention
  RealMatrix dP;           ///< T_q x T_v, dO V^T
  std::vector<Real> D;     ///< per query row, sum_j P_ij dP_ij (= sum_l dO_il O_il)
  RealMatrix dS;           ///< T_q x T_v, P o (dP - D 1^T): exactly 0 where forbidden
  RealMatrix dQ;           ///< T_q x d_k, c dS K
  RealMatrix dK;           ///< T_v x d_k, c dS^T Q
  RealMatrix dV;           ///< T_v x d_v, P^T dO
};

/// The gradients of L = sum_il dO_il O_il with O = attention(Q, K, V, mask)
/// and logits S = c Q K^T (c = `scale` taken exactly, else 1/sqrt(d_k) in
/// Real, as exact_attention): with P the masked softmax of S,
///   dV = P^T dO,  dP = dO V^T,  D_i = sum_j P_ij dP_ij,
///   dS = P o (dP - D 1^T)  (the softmax's Jacobian diag(p) - p p^T, row by row),
///   dQ = c dS K,  dK = c dS^T Q
/// (Dao et al. 2022, "FlashAttention", arXiv:2205.14135, Appendix B.2).
/// A causal mask is part of `mask` (the caller builds it).
///
/// Q: T_q x d_k, K: T_v x d_k, V: T_v x d_v, dO: T_q x d_v, mask: T_q x T_v
/// (true = forbidden). Throws OracleRefusal as exact_attention does (shapes,
/// non-finite input or scale, d_k == 0, a fully forbidden row: row()), and
/// for dO not T_q x d_v or holding NaN or Inf.
ExactGradients exact_attention_backward(const DMatrix& Q, const DMatrix& K, const DMatrix& V,
                                        const DMatrix& dO, const std::optional<BoolMatrix>& mask,
                                        std::optional<double> scale = std::nullopt);

}  // namespace attn::ref

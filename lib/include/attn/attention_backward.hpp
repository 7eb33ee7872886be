#pragma once
#include <optional>

#include "attn/attention_options.hpp"
#include "attn/attention_tiled.hpp"
#include "attn/matrix.hpp"

namespace attn {

/// The gradients of a scalar loss with respect to Q (T_q x d_k), K (T_v x d_k)
/// and V (T_v x d_v), given its gradient dO with respect to O.
template <class M>
struct AttentionGradientsOf {
  M dQ;
  M dK;
  M dV;
};
/// Written once for any matrix type M and named for the caller's
/// Matrix<T>: the library, built with Eigen renamed (abi.hpp), uses the same
/// template with its own matrices, a different type, so no member function
/// of it can be merged by the linker with the caller's.
template <class T>
using AttentionGradients = AttentionGradientsOf<Matrix<T>>;

/// The backward pass of attention, naive form, from the definition: with
/// S = c Q K^T (c = options.scale, default 1/sqrt(d_k)), P = masked_softmax(S)
/// and O = P V (attention, section 32.2.2), the chain rule through O = P V
/// and through the softmax's Jacobian diag(p) - p p^T gives
///   dV = P^T dO,   dP = dO V^T,   D_i = sum_j dP_ij P_ij,
///   dS = P o (dP - D 1^T),   dQ = c dS K,   dK = c dS^T Q
/// (Dao et al. 2022, "FlashAttention", arXiv:2205.14135, Appendix B.2; o is the
/// entry-wise product). Materialises S, P, dP and dS (T_q x T_v each).
/// A forbidden entry has P_ij = 0 exactly, hence dS_ij = 0 exactly: a key
/// that every query is forbidden gets dK and dV rows exactly 0.
///
/// Q: T_q x d_k, K: T_v x d_k, V: T_v x d_v, dO: T_q x d_v, mask: T_q x T_v
/// (true = forbidden) or std::nullopt, options: the scale and the causal
/// mask (AttentionOptions). Returns dQ: T_q x d_k, dK: T_v x d_k,
/// dV: T_v x d_v. T_q = 0 gives dQ empty and dK, dV zero.
/// Throws as attention does, naming "attention_backward": ShapeError (d_k
/// mismatch, K and V with different row counts, mask shape, d_k == 0, dO not
/// T_q x d_v), NonFiniteInputError (NaN/Inf in Q, K, V, dO or the scale; a
/// logit refused by the rule for logits, docs/ARCHITECTURE.md, "lib/"),
/// FullyMaskedRowError (a query row that the mask, with the causal mask
/// when options.causal, leaves with no key; also T_v = 0 with T_q > 0).
///
/// Inline: computed by libattn through attn::raw (abi.hpp).
template <class T>
AttentionGradients<T> attention_backward(const Matrix<T>& Q, const Matrix<T>& K, const Matrix<T>& V,
                                         const Matrix<T>& dO,
                                         const std::optional<Mask>& mask = std::nullopt,
                                         const AttentionOptions& options = {}) {
  AttentionGradients<T> g;
  raw::MaskIn m;
  raw::attention_backward(raw::in(Q), raw::in(K), raw::in(V), raw::in(dO), raw::in(mask, m),
                          options, raw::out(g.dQ, Q.rows(), Q.cols()),
                          raw::out(g.dK, K.rows(), K.cols()), raw::out(g.dV, V.rows(), V.cols()));
  return g;
}

/// The backward pass of attention, tiled, in FlashAttention-2's order
/// (Dao 2023, "FlashAttention-2", arXiv:2307.08691, Algorithm 2): it never
/// forms the T_q x T_v matrices and recomputes P from Q, K and the forward's
/// logsumexp L instead of storing it:
///   D = rowsum(dO o O) first (T_q scalars); then for each key tile j (outer
///   loop), with dK_j = dV_j = 0, for each query tile i (inner loop):
///   S_ij = c Q_i K_j^T,  P_ij = exp(S_ij - L_i) (exactly 0 where forbidden),
///   dV_j += P_ij^T dO_i,  dP_ij = dO_i V_j^T,  dS_ij = P_ij o (dP_ij - D_i),
///   dQ_i += dS_ij K_j,  dK_j += dS_ij^T Q_i;
///   dK_j is multiplied by c when the key tile is done, dQ by c at the end.
/// D_i = rowsum(dO o O)_i equals the naive form's sum_j dP_ij P_ij since
/// O_i = sum_j P_ij V_j. A (query tile, key tile) block the mask forbids
/// wholly adds exactly nothing and is skipped (tiles.skip_forbidden_tiles).
/// It runs on the calling thread, Eigen's products included (the thread's
/// OpenMP team size is held at 1 during the call and restored after;
/// tiles.threads is checked but not used), and agrees with
/// attention_backward within rounding.
///
/// O (T_q x d_v) and logsumexp (T_q) must be the forward's for the same Q,
/// K, V, mask and options: attention_tiled(Q, K, V, mask, options, tiles)
/// returns both (any correct forward's O and logsumexp_i = log sum_j
/// exp(S_ij) over the allowed keys will do; other values give no gradient).
/// Extra memory: D (T_q), the accumulators dQ, dK, dV (the result), one
/// tile each of S, P, dP (3 tiles.query tiles.key scalars) and, when
/// options.causal, the combined mask (T_q T_v bytes); and the library's
/// copies of the inputs and of the result (abi.hpp).
///
/// Shapes, result and errors as attention_backward, naming
/// "attention_backward_tiled", and also: ShapeError for a tile size < 1,
/// threads < 0, O not T_q x d_v, logsumexp not of length T_q;
/// NonFiniteInputError for NaN/Inf in O or logsumexp. A fully forbidden row
/// (FullyMaskedRowError, the lowest) is found from the mask before any tile
/// is computed.
///
/// Inline: computed by libattn through attn::raw (abi.hpp).
template <class T>
AttentionGradients<T> attention_backward_tiled(const Matrix<T>& Q, const Matrix<T>& K,
                                               const Matrix<T>& V, const Matrix<T>& O,
                                               const Vector<T>& logsumexp, const Matrix<T>& dO,
                                               const std::optional<Mask>& mask = std::nullopt,
                                               const AttentionOptions& options = {},
                                               TileSizes tiles = {}) {
  AttentionGradients<T> g;
  raw::MaskIn m;
  raw::attention_backward_tiled(raw::in(Q), raw::in(K), raw::in(V), raw::in(O),
                                raw::in(logsumexp), raw::in(dO), raw::in(mask, m), options, tiles,
                                raw::out(g.dQ, Q.rows(), Q.cols()),
                                raw::out(g.dK, K.rows(), K.cols()),
                                raw::out(g.dV, V.rows(), V.cols()));
  return g;
}

}  // namespace attn

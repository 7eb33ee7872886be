#pragma once
#include <optional>

#include "attn/matrix.hpp"

namespace attn {

/// Output of naive attention: O (T_q x d_v) and the weights A (T_q x T_v).
template <class M>
struct AttentionResultOf {
  M O;
  M A;
};
/// Written once for any matrix type M and named for the caller's
/// Matrix<T>: the library, built with Eigen renamed (abi.hpp), uses the same
/// template with its own matrices, a different type, so no member function
/// of it can be merged by the linker with the caller's.
template <class T>
using AttentionResult = AttentionResultOf<Matrix<T>>;

/// Scaled dot-product attention, naive form (Definition, section 32.2.2):
///   A = masked_softmax(Q K^T / sqrt(d_k), mask),  O = A V.
/// Materialises the T_q x T_v matrices S and A (memory O(T_q T_v)).
///
/// Q: T_q x d_k, K: T_v x d_k, V: T_v x d_v, mask: T_q x T_v (true = forbidden)
/// or std::nullopt for no mask.
/// Throws ShapeError (d_k mismatch, K and V with different row counts, mask
/// shape, d_k == 0), NonFiniteInputError (NaN/Inf in Q, K, V; a logit refused
/// by the rule for logits: an allowed logit that overflows to +Inf, or a row
/// whose allowed logits all overflow to -Inf), FullyMaskedRowError (a query
/// row with every key forbidden by the mask). Every message names
/// "attention" and the shapes.
///
/// The rule for logits (docs/ARCHITECTURE.md, "lib/"): only entries the mask
/// allows are read; an allowed logit that overflows to -Inf gets weight 0
/// (its exact weight rounded to T) unless the whole row does.
/// Inline: computed by libattn through attn::raw::attention (abi.hpp).
template <class T>
AttentionResult<T> attention(const Matrix<T>& Q, const Matrix<T>& K, const Matrix<T>& V,
                             const std::optional<Mask>& mask = std::nullopt) {
  AttentionResult<T> r;
  raw::MaskIn m;
  raw::attention(raw::in(Q), raw::in(K), raw::in(V), raw::in(mask, m),
                 raw::out(r.O, Q.rows(), V.cols()), raw::out(r.A, Q.rows(), K.rows()));
  return r;
}

}  // namespace attn

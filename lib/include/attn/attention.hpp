#pragma once
#include <optional>

#include "attn/matrix.hpp"

namespace attn {

/// Output of naive attention: O (T_q x d_v) and the weights A (T_q x T_v).
template <class T>
struct AttentionResult {
  Matrix<T> O;
  Matrix<T> A;
};

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
template <class T>
AttentionResult<T> attention(const Matrix<T>& Q, const Matrix<T>& K, const Matrix<T>& V,
                             const std::optional<Mask>& mask = std::nullopt);

extern template AttentionResult<float> attention(const Matrix<float>&, const Matrix<float>&,
                                                 const Matrix<float>&,
                                                 const std::optional<Mask>&);
extern template AttentionResult<double> attention(const Matrix<double>&, const Matrix<double>&,
                                                  const Matrix<double>&,
                                                  const std::optional<Mask>&);

}  // namespace attn

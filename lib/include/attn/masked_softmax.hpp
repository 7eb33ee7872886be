#pragma once
#include "attn/matrix.hpp"

namespace attn {

/// Row-wise masked softmax (Lemma 2, section 32.2.4), stable form:
///   m_i  = max over allowed j of S_ij,
///   A_ij = exp(S_ij - m_i) / sum_{allowed j'} exp(S_ij' - m_i)   for allowed j,
///   A_ij = 0.0 exactly                                           for forbidden j.
/// An entry is forbidden if mask(i, j) is true or S_ij is -Inf (the text's
/// F2 matrix writes forbidden logits as -inf). Forbidden entries are never
/// read: whatever they hold (NaN, +Inf) they get weight 0.
///
/// S: T_q x T_v logits; mask: T_q x T_v, true = forbidden.
/// Returns A: T_q x T_v, every row non-negative and summing to 1 (F1).
/// Throws ShapeError if the mask is not T_q x T_v; NonFiniteInputError if
/// an allowed entry of S is NaN or +Inf; FullyMaskedRowError(i) if row i has
/// no allowed entry (including T_v = 0 with T_q > 0). Messages name
/// "masked_softmax" (or "softmax_rows") and the shape of S.
/// Inline: computed by libattn through attn::raw::masked_softmax (abi.hpp).
template <class T>
Matrix<T> masked_softmax(const Matrix<T>& S, const Mask& mask) {
  Matrix<T> A;
  const raw::MaskIn m = raw::in(mask);
  raw::masked_softmax(raw::in(S), &m, raw::out(A, S.rows(), S.cols()));
  return A;
}

/// Row-wise softmax with no mask (F1): masked_softmax with an all-false mask.
/// -Inf entries of S get weight exactly 0; a row of only -Inf is refused.
template <class T>
Matrix<T> softmax_rows(const Matrix<T>& S) {
  Matrix<T> A;
  raw::masked_softmax(raw::in(S), nullptr, raw::out(A, S.rows(), S.cols()));
  return A;
}

}  // namespace attn

#pragma once
#include "attn/matrix.hpp"

namespace attn {

/// Scaled logits S = Q K^T / sqrt(d_k) (Lemma 1, section 32.2.3):
/// S_ij = sum_r Q_ir K_jr / sqrt(d_k).
///
/// Q: T_q x d_k, K: T_v x d_k. Returns S: T_q x T_v.
/// Throws ShapeError if Q.cols() != K.cols() or d_k == 0;
/// NonFiniteInputError if Q or K holds NaN or Inf.
/// Instantiated for float and double.
/// Inline: computed by libattn through attn::raw::scores (abi.hpp).
template <class T>
Matrix<T> scores(const Matrix<T>& Q, const Matrix<T>& K) {
  Matrix<T> S;
  raw::scores(raw::in(Q), raw::in(K), raw::out(S, Q.rows(), K.rows()));
  return S;
}

}  // namespace attn

#pragma once
#include <vector>

#include "attn/attention.hpp"
#include "attn/matrix.hpp"

namespace attn {

/// Attention over a batch of N independent sequences of their own lengths,
/// each with its own padding (section 32.2.4: padding keys may be attended
/// by no query); "varlen" as in FlashAttention's variable-length batches.
/// Not the 4-D grouped-query operation `attnlab check --op
/// batched_attention` judges, which the library does not compute.
/// Sequence n: Q[n] is T_q(n) x d_k(n), K[n] is T_v(n) x d_k(n), V[n] is
/// T_v(n) x d_v(n); keys j >= key_lengths[n] are padding and forbidden
/// (padding_mask). With `causal`, the top-left causal mask (query i sees
/// keys j <= i) is combined with it (combine_masks). Shapes may differ from
/// one sequence to the next; nothing is padded to a common length here.
///
/// Returns N results; result n equals attention(Q[n], K[n], V[n], mask_n),
/// computed the naive way (A is T_q(n) x T_v(n)).
/// Throws ShapeError if the four vectors differ in length or
/// key_lengths[n] is outside [0, T_v(n)]; every error of attention for a
/// sequence (ShapeError, NonFiniteInputError, FullyMaskedRowError, same
/// type, same row/column) with a message starting
/// "attention_varlen: sequence n: ". key_lengths[n] = 0 with T_q(n) > 0
/// leaves every query without a key: FullyMaskedRowError(0).
///
/// Inline: computed by libattn through attn::raw (abi.hpp).
template <class T>
std::vector<AttentionResult<T>> attention_varlen(const std::vector<Matrix<T>>& Q,
                                                 const std::vector<Matrix<T>>& K,
                                                 const std::vector<Matrix<T>>& V,
                                                 const std::vector<Index>& key_lengths,
                                                 bool causal = false) {
  std::vector<raw::In<T>> q, k, v;
  for (const Matrix<T>& M : Q) q.push_back(raw::in(M));
  for (const Matrix<T>& M : K) k.push_back(raw::in(M));
  for (const Matrix<T>& M : V) v.push_back(raw::in(M));
  const bool agree = K.size() == Q.size() && V.size() == Q.size() && key_lengths.size() == Q.size();
  std::vector<AttentionResult<T>> r(agree ? Q.size() : 0);
  std::vector<raw::Out<T>> O, A;
  for (std::size_t n = 0; n < r.size(); ++n) {
    O.push_back(raw::out(r[n].O, Q[n].rows(), V[n].cols()));
    A.push_back(raw::out(r[n].A, Q[n].rows(), K[n].rows()));
  }
  raw::attention_varlen(q.data(), q.size(), k.data(), k.size(), v.data(), v.size(),
                         key_lengths.data(), key_lengths.size(), causal, O.data(), A.data(),
                         r.size());
  return r;
}

/// attention_varlen's former name, kept for code written against it.
template <class T>
[[deprecated("attention_batched is renamed attention_varlen")]] std::vector<AttentionResult<T>>
attention_batched(const std::vector<Matrix<T>>& Q, const std::vector<Matrix<T>>& K,
                  const std::vector<Matrix<T>>& V, const std::vector<Index>& key_lengths,
                  bool causal = false) {
  return attention_varlen<T>(Q, K, V, key_lengths, causal);
}

}  // namespace attn

#pragma once
#include <optional>
#include <vector>

#include "attn/matrix.hpp"

namespace attn {

/// One head's projections (section 32.2.5): Q_i = X W_Q, K_i = X W_K, V_i = X W_V.
/// W_Q: d_model x d_k, W_K: d_model x d_k, W_V: d_model x d_v (d_k >= 1).
template <class M>
struct HeadWeightsOf {
  M W_Q;
  M W_K;
  M W_V;
};
/// Written once for any matrix type M and named for the caller's
/// Matrix<T>: the library, built with Eigen renamed (abi.hpp), uses the same
/// template with its own matrices, a different type, so no member function
/// of it can be merged by the linker with the caller's.
template <class T>
using HeadWeights = HeadWeightsOf<Matrix<T>>;

/// All heads plus the output projection. Every head has the same d_v;
/// W_O: (h * d_v) x d_model_out. d_k may differ between heads.
template <class M>
struct MultiHeadWeightsOf {
  std::vector<HeadWeightsOf<M>> heads;
  M W_O;
};
/// As HeadWeights: one template, named for the caller's Matrix<T>.
template <class T>
using MultiHeadWeights = MultiHeadWeightsOf<Matrix<T>>;

namespace raw {
/// Both forms of multi_head_attention: the caller's weights as views, the
/// result allocated here (T_q x W_O.cols()); X_kv == nullptr: self-attention.
template <class T>
Matrix<T> multi_head(const Matrix<T>& X_q, const Matrix<T>* X_kv, const MultiHeadWeights<T>& w,
                     const std::optional<Mask>& mask) {
  std::vector<HeadIn<T>> heads;
  heads.reserve(w.heads.size());
  for (const HeadWeights<T>& h : w.heads) heads.push_back({in(h.W_Q), in(h.W_K), in(h.W_V)});
  const In<T> kv = X_kv ? in(*X_kv) : In<T>{};
  Matrix<T> O;
  MaskIn m;
  multi_head_attention(in(X_q), X_kv ? &kv : nullptr, heads.data(), heads.size(), in(w.W_O),
                       in(mask, m), out(O, X_q.rows(), w.W_O.cols()));
  return O;
}
}  // namespace raw

/// Multi-head self-attention (section 32.2.5; Vaswani et al. 2017, section 3.2.2):
///   O_i = attention(X W_Q^i, X W_K^i, X W_V^i, mask).O      (T x d_v, per head)
///   O   = [O_1, ..., O_h] W_O                                (T x d_model_out)
/// Head i's output occupies columns [i*d_v, (i+1)*d_v) of the concatenation.
/// Every head uses the same mask.
///
/// X: T x d_model; mask: T x T (true = forbidden) or std::nullopt.
/// Throws ShapeError (no head; a weight whose shape does not fit, naming the
/// head and the matrix, e.g. "head 2: W_K is 4x3 but X has d_model = 5";
/// d_k == 0; heads with different d_v; W_O not (h*d_v) x d_model_out; mask
/// shape), NonFiniteInputError (NaN/Inf in X or in a weight, naming it; a
/// projection that overflows, e.g. "head 1: Q = X_q W_Q"; an output
/// projection that overflows, "O = [O_1, ..., O_h] W_O"; a logit refused by
/// the rule for logits (masked_softmax.hpp), as "S" with the message naming
/// "multi_head_attention: head i"), FullyMaskedRowError (a query row with
/// every key forbidden, naming the head).
///
/// Inline: computed by libattn through attn::raw (abi.hpp).
template <class T>
Matrix<T> multi_head_attention(const Matrix<T>& X, const MultiHeadWeights<T>& w,
                               const std::optional<Mask>& mask = std::nullopt) {
  return raw::multi_head(X, static_cast<const Matrix<T>*>(nullptr), w, mask);
}

/// Multi-head cross-attention: queries from X_q (T_q x d_model), keys and
/// values from X_kv (T_v x d_model): Q_i = X_q W_Q^i, K_i = X_kv W_K^i,
/// V_i = X_kv W_V^i; mask: T_q x T_v. Returns T_q x d_model_out.
/// Errors as above; also ShapeError if X_q and X_kv differ in d_model.
template <class T>
Matrix<T> multi_head_attention(const Matrix<T>& X_q, const Matrix<T>& X_kv,
                               const MultiHeadWeights<T>& w,
                               const std::optional<Mask>& mask = std::nullopt) {
  return raw::multi_head(X_q, &X_kv, w, mask);
}

}  // namespace attn

#include "attn/attention.hpp"

#include "attn/errors.hpp"
#include "attn/masked_softmax.hpp"
#include "attn/scores.hpp"
#include "checks.hpp"

namespace attn {

template <class T>
AttentionResult<T> attention(const Matrix<T>& Q, const Matrix<T>& K, const Matrix<T>& V,
                             const std::optional<Mask>& mask) {
  constexpr const char* where = "attention";
  detail::require_key_value_mask(K, V, mask, Q.rows(), where);
  // Q, K: shape and finiteness are checked by scores (Lemma 1).
  Matrix<T> S = scores(Q, K);
  AttentionResult<T> r;
  r.A = mask ? masked_softmax(S, *mask) : softmax_rows(S);
  r.O = r.A * V;
  return r;
}

template AttentionResult<float> attention(const Matrix<float>&, const Matrix<float>&,
                                          const Matrix<float>&, const std::optional<Mask>&);
template AttentionResult<double> attention(const Matrix<double>&, const Matrix<double>&,
                                           const Matrix<double>&, const std::optional<Mask>&);

}  // namespace attn

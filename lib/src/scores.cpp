// Lemma 1: the scaled logits.

#include "core.hpp"
#include "softmax_impl.hpp"

namespace attn::core {

template <class T>
Matrix<T> scores(const Matrix<T>& Q, const Matrix<T>& K) {
  return detail::scaled_logits(Q, K, "scores");
}

template Matrix<float> scores(const Matrix<float>&, const Matrix<float>&);
template Matrix<double> scores(const Matrix<double>&, const Matrix<double>&);

}  // namespace attn::core

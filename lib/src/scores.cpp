#include "attn/scores.hpp"

#include <cmath>

#include "attn/errors.hpp"
#include "checks.hpp"

namespace attn {

template <class T>
Matrix<T> scores(const Matrix<T>& Q, const Matrix<T>& K) {
  constexpr const char* where = "scores";
  detail::require_query_key(Q, K, where);
  // Lemma 1: S_ij = sum_r Q_ir K_jr, then the 1/sqrt(d_k) scale.
  const T scale = std::sqrt(static_cast<T>(Q.cols()));
  Matrix<T> S = Q * K.transpose();
  S /= scale;
  return S;
}

template Matrix<float> scores(const Matrix<float>&, const Matrix<float>&);
template Matrix<double> scores(const Matrix<double>&, const Matrix<double>&);

}  // namespace attn

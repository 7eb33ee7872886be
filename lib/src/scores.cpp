#include "attn/scores.hpp"

#include <cmath>

#include "attn/errors.hpp"
#include "checks.hpp"

namespace attn {

template <class T>
Matrix<T> scores(const Matrix<T>& Q, const Matrix<T>& K) {
  constexpr const char* where = "scores";
  if (Q.cols() != K.cols())
    throw ShapeError(std::string(where) + ": Q is " + shape_text(Q.rows(), Q.cols()) +
                     " and K is " + shape_text(K.rows(), K.cols()) +
                     "; both need d_k columns (Lemma 1)");
  if (Q.cols() == 0)
    throw ShapeError(std::string(where) + ": d_k = 0 (Q is " + shape_text(Q.rows(), Q.cols()) +
                     "); the scale 1/sqrt(d_k) is undefined");
  detail::require_finite(Q, "Q", where);
  detail::require_finite(K, "K", where);
  // Lemma 1: S_ij = sum_r Q_ir K_jr, then the 1/sqrt(d_k) scale.
  const T scale = std::sqrt(static_cast<T>(Q.cols()));
  Matrix<T> S = Q * K.transpose();
  S /= scale;
  return S;
}

template Matrix<float> scores(const Matrix<float>&, const Matrix<float>&);
template Matrix<double> scores(const Matrix<double>&, const Matrix<double>&);

}  // namespace attn

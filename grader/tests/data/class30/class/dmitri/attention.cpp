#include <cmath>
#include <limits>
#include <stdexcept>

#include "attention.hpp"

// Dmitri, F3
namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  const long Tq = Q.rows();
  const long Tv = K.rows();
  if (V.rows() != Tv) throw std::invalid_argument("V must have as many rows as K");
  Matrix S = Q * K.transpose();
  S /= std::sqrt(double(Q.cols()));
  Matrix A = Matrix::Zero(Tq, Tv);
  for (long i = 0; i < Tq; ++i) {
    double mx = -std::numeric_limits<double>::infinity();
    for (long j = 0; j < Tv; ++j)
      if (!(mask && (*mask)(i, j))) mx = std::max(mx, S(i, j));
    if (mx == -std::numeric_limits<double>::infinity())
      throw std::domain_error("all keys masked for a query row");
    double sum = 0.0;
    for (long j = 0; j < Tv; ++j) {
      if (mask && (*mask)(i, j)) continue;
      A(i, j) = std::exp(S(i, j) - mx);
      sum += A(i, j);
    }
    A.row(i) /= sum;
  }
  return {A * V, A};
}

}  // namespace f3

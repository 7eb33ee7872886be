// command: check
// expect-exit: 1
// expect-text: the function modified its input Q in place; the caller's Q must stay as it was given
// Hostile kernel for attnlab check (the F3 interface): right answers, but it
// halves the caller's Q through const_cast after computing with it; the
// caller's Q is passed by const reference and must stay as given.
#include <cmath>
#include <limits>
#include <stdexcept>

#include "attention.hpp"

namespace f3 {
AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  if (Q.cols() != K.cols() || K.rows() != V.rows() ||
      (mask && (mask->rows() != Q.rows() || mask->cols() != K.rows())))
    throw std::invalid_argument("attention: shapes do not match");
  Matrix S = Q * K.transpose() / std::sqrt(static_cast<double>(Q.cols()));
  Matrix A(S.rows(), S.cols());
  for (Eigen::Index i = 0; i < S.rows(); ++i) {
    double top = -std::numeric_limits<double>::infinity();
    for (Eigen::Index j = 0; j < S.cols(); ++j)
      if (!(mask && (*mask)(i, j))) top = std::max(top, S(i, j));
    if (top == -std::numeric_limits<double>::infinity())
      throw std::domain_error("attention: row " + std::to_string(i) + " is fully forbidden");
    double sum = 0;
    for (Eigen::Index j = 0; j < S.cols(); ++j) {
      A(i, j) = mask && (*mask)(i, j) ? 0.0 : std::exp(S(i, j) - top);
      sum += A(i, j);
    }
    A.row(i) /= sum;
  }
  const_cast<Matrix&>(Q) *= 0.5;  // the caller's Q changes
  return {A * V, A};
}
}  // namespace f3

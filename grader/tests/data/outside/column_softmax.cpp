// Normalises over the wrong axis: Eigen's colwise() where rowwise() was meant.
// Expected: wrong_axis, or no key (never on a case where both axes agree).
#include "attention.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  if (Q.cols() != K.cols() || K.rows() != V.rows()) throw std::invalid_argument("shapes");
  Matrix S = Q * K.transpose() / std::sqrt(double(Q.cols()));
  if (mask) {
    if (mask->rows() != S.rows() || mask->cols() != S.cols()) throw std::invalid_argument("mask");
    for (Eigen::Index i = 0; i < S.rows(); ++i) {
      if (mask->row(i).all()) throw std::domain_error("every key masked");
      for (Eigen::Index j = 0; j < S.cols(); ++j)
        if ((*mask)(i, j)) S(i, j) = -std::numeric_limits<double>::infinity();
    }
  }
  Matrix A(S.rows(), S.cols());
  for (Eigen::Index j = 0; j < S.cols(); ++j) {
    const double m = S.col(j).maxCoeff();
    Eigen::VectorXd e = (S.col(j).array() - m).exp();
    if (m == -std::numeric_limits<double>::infinity()) e.setZero();
    A.col(j) = e / e.sum();
  }
  return {A * V, A};
}

}  // namespace f3

// An Eigen engine that tolerates heads of unequal width: Q and K are cut to
// their common number of columns (leftCols) before Q K^T, instead of the
// shape error being reported. Expected: dk_mismatch_accepted, or no key.
#include "attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  if (K.rows() != V.rows()) throw std::invalid_argument("K and V must have the same length");
  const Eigen::Index d = std::min(Q.cols(), K.cols());  // common head size
  Matrix S = Q.leftCols(d) * K.leftCols(d).transpose() / std::sqrt(double(d));
  if (mask) {
    if (mask->rows() != S.rows() || mask->cols() != S.cols())
      throw std::invalid_argument("mask must be T_q x T_v");
    S = mask->select(-std::numeric_limits<double>::infinity(), S);
  }
  Matrix A(S.rows(), S.cols());
  for (Eigen::Index i = 0; i < S.rows(); ++i) {
    const double m = S.row(i).maxCoeff();
    if (m == -std::numeric_limits<double>::infinity())
      throw std::domain_error("every key is masked for a query row");
    for (Eigen::Index j = 0; j < S.cols(); ++j) A(i, j) = std::exp(S(i, j) - m);
    A.row(i) /= A.row(i).sum();
  }
  return {A * V, A};
}

}  // namespace f3

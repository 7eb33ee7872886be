// An F4 "fix" that keeps the softmax over every key and repairs the row
// sums afterwards: zero the masked weights with Eigen's select, divide each
// row by its new sum. The stabilising maximum still includes the masked
// logits, and a row with every key masked becomes 0/0 = NaN.
// Expected: post_softmax_renormalised, or no key (never max_over_forbidden,
// which refuses that row).
#include "masked_attention.hpp"

#include <cmath>
#include <stdexcept>

namespace f4 {

namespace {

Matrix rowwise_softmax(const Matrix& X) {
  Matrix P(X.rows(), X.cols());
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    const double m = X.row(i).maxCoeff();
    for (Eigen::Index j = 0; j < X.cols(); ++j) P(i, j) = std::exp(X(i, j) - m);
    P.row(i) /= P.row(i).sum();
  }
  return P;
}

}  // namespace

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  if (Q.cols() != K.cols()) throw std::invalid_argument("Q and K must have the same d_k");
  if (K.rows() != V.rows()) throw std::invalid_argument("K and V must have the same T_v");
  Matrix A = rowwise_softmax(Q * K.transpose() / std::sqrt(double(Q.cols())));
  if (mask) {
    if (mask->rows() != A.rows() || mask->cols() != A.cols())
      throw std::invalid_argument("mask must be T_q x T_v");
    A = mask->select(0.0, A);
    const Eigen::VectorXd row_sums = A.rowwise().sum();
    A.array().colwise() /= row_sums.array();  // rows sum to 1 again
  }
  return {A * V, A};
}

}  // namespace f4

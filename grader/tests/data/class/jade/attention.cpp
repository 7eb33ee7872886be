#include "attention.hpp"
#include "row_softmax.hpp"
#include <cmath>
#include <stdexcept>
namespace f3 {
AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V, const std::optional<Mask>& mask) {
  if (Q.cols() != K.cols() || K.rows() != V.rows() || Q.cols() == 0) throw std::invalid_argument("shapes");
  if (mask && (mask->rows() != Q.rows() || mask->cols() != K.rows())) throw std::invalid_argument("mask");
  if (!Q.allFinite() || !K.allFinite() || !V.allFinite()) throw std::domain_error("not finite");
  const Matrix S = Q * K.transpose() / std::sqrt(double(Q.cols()));
  Matrix A(S.rows(), S.cols());
  for (Eigen::Index i = 0; i < S.rows(); ++i) {
    std::vector<double> row(S.cols());
    std::vector<bool> forbidden(row.size(), false);
    for (Eigen::Index j = 0; j < S.cols(); ++j) {
      row[j] = S(i, j);
      forbidden[j] = mask && (*mask)(i, j);
    }
    row_softmax(row, forbidden);
    for (Eigen::Index j = 0; j < S.cols(); ++j) A(i, j) = row[j];
  }
  return {A * V, A};
}
}  // namespace f3

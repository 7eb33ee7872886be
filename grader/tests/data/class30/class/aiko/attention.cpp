// Aiko -- F3, vectorised with Eigen arrays
#include "attention.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  if (Q.cols() != K.cols()) throw std::invalid_argument("d_k of Q and K differ");
  if (K.rows() != V.rows()) throw std::invalid_argument("K and V need the same T_v");
  Matrix S = (Q * K.transpose()) / std::sqrt(static_cast<double>(Q.cols()));
  if (mask) {
    if (mask->rows() != S.rows() || mask->cols() != S.cols())
      throw std::invalid_argument("mask shape");
    for (Eigen::Index i = 0; i < S.rows(); ++i)
      if (mask->row(i).all()) throw std::domain_error("row " + std::to_string(i) + " fully masked");
    S = mask->select(Matrix::Constant(S.rows(), S.cols(), -std::numeric_limits<double>::infinity()), S);
  }
  Eigen::VectorXd m = S.rowwise().maxCoeff();
  Matrix D = S.colwise() - m;
  Matrix E = D.array().exp().matrix();
  Eigen::VectorXd z = E.rowwise().sum();
  Matrix A = E.array().colwise() / z.array();
  return {A * V, A};
}

}  // namespace f3

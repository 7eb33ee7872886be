// Dalia K. -- F3 in C++
#include "attention.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  if (Q.cols() != K.cols()) throw std::invalid_argument("Q and K have different d_k");
  if (K.rows() != V.rows()) throw std::invalid_argument("K and V have different T_v");
  const auto Tq = Q.rows(), Tv = K.rows();
  if (mask && (mask->rows() != Tq || mask->cols() != Tv))
    throw std::invalid_argument("mask must be T_q x T_v");

  const double scale = 1.0 / std::sqrt(static_cast<double>(Q.cols()));
  Matrix S = Q * K.transpose() * scale;
  Matrix A = Matrix::Zero(Tq, Tv);
  for (Eigen::Index i = 0; i < Tq; ++i) {
    double mx = -std::numeric_limits<double>::infinity();
    bool any = false;
    for (Eigen::Index j = 0; j < Tv; ++j) {
      if (mask && (*mask)(i, j)) continue;
      any = true;
      if (S(i, j) > mx || std::isnan(S(i, j))) mx = S(i, j);
    }
    if (!any) throw std::domain_error("row " + std::to_string(i) + " has no allowed key");
    double sum = 0;
    for (Eigen::Index j = 0; j < Tv; ++j) {
      if (mask && (*mask)(i, j)) continue;
      A(i, j) = std::exp(S(i, j) - mx);
      sum += A(i, j);
    }
    for (Eigen::Index j = 0; j < Tv; ++j) A(i, j) /= sum;
  }
  return {A * V, A};
}

}  // namespace f3

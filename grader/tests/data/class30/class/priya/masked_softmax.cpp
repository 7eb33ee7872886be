// Priya -- F2
#include "masked_softmax.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace f2 {

Matrix masked_softmax(const Matrix& S, const Mask& mask) {
  if (S.rows() != mask.rows() || S.cols() != mask.cols())
    throw std::invalid_argument("S and mask must have the same shape");
  const double ninf = -std::numeric_limits<double>::infinity();
  Matrix A(S.rows(), S.cols());
  for (Eigen::Index i = 0; i < S.rows(); ++i) {
    bool any_allowed = false;
    for (Eigen::Index j = 0; j < S.cols(); ++j)
      if (!mask(i, j) && S(i, j) != ninf) any_allowed = true;
    if (!any_allowed) throw std::domain_error("row " + std::to_string(i) + ": nothing allowed");
    // softmax of the row first
    double mx = ninf;
    for (Eigen::Index j = 0; j < S.cols(); ++j) mx = std::max(mx, S(i, j));
    double sum = 0;
    for (Eigen::Index j = 0; j < S.cols(); ++j) {
      A(i, j) = std::exp(S(i, j) - mx);
      sum += A(i, j);
    }
    A.row(i) /= sum;
    // then the mask: forbidden keys get weight 0
    for (Eigen::Index j = 0; j < S.cols(); ++j)
      if (mask(i, j)) A(i, j) = 0.0;
  }
  return A;
}

}  // namespace f2

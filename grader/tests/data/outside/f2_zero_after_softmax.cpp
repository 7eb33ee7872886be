// A masked softmax in Eigen that runs the softmax over the whole row and
// only then clears the masked entries (the F4 bug, in C++): a masked row no
// longer sums to 1. Expected: post_softmax_mask, or no key.
#include "masked_softmax.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace f2 {

Matrix masked_softmax(const Matrix& S, const Mask& mask) {
  if (mask.rows() != S.rows() || mask.cols() != S.cols())
    throw std::invalid_argument("mask and S differ in shape");
  Matrix A(S.rows(), S.cols());
  for (Eigen::Index i = 0; i < S.rows(); ++i) {
    const double row_max = S.row(i).maxCoeff();
    if (row_max == -INFINITY) throw std::domain_error("row " + std::to_string(i) + " is all -inf");
    double denom = 0.0;
    for (Eigen::Index j = 0; j < S.cols(); ++j) denom += (A(i, j) = std::exp(S(i, j) - row_max));
    A.row(i) /= denom;
  }
  for (Eigen::Index i = 0; i < S.rows(); ++i) {
    if (mask.row(i).all()) throw std::domain_error("row " + std::to_string(i) + " is fully masked");
    for (Eigen::Index j = 0; j < S.cols(); ++j)
      if (mask(i, j)) A(i, j) = 0.0;  // masked keys get no weight
  }
  return A;
}

}  // namespace f2

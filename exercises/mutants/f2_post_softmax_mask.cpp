// mutant: post_softmax_mask_cpp
// exercise: F2
// misconception: the softmax is taken over every logit and the forbidden weights are zeroed afterwards, without renormalising.
// violates: Lemma 2 (mask before the softmax), section 32.2.4; exercise F4
// caught by: row_stochastic
// key: post_softmax_mask
#include "masked_softmax.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace f2 {

Matrix masked_softmax(const Matrix& S, const Mask& mask) {
  constexpr double minus_inf = -std::numeric_limits<double>::infinity();
  const bool masked = mask.size() > 0;
  if (masked && (mask.rows() != S.rows() || mask.cols() != S.cols()))
    throw std::invalid_argument("the mask is not the shape of S");
  Matrix A(S.rows(), S.cols());
  for (Eigen::Index i = 0; i < S.rows(); ++i) {
    bool any_allowed = false;
    for (Eigen::Index j = 0; j < S.cols(); ++j)
      any_allowed = any_allowed || (!(masked && mask(i, j)) && S(i, j) != minus_inf);
    if (!any_allowed) throw std::domain_error("row " + std::to_string(i) + " has every key forbidden");
    const double row_max = S.row(i).maxCoeff();  // over every key, forbidden ones included
    double sum = 0.0;
    for (Eigen::Index j = 0; j < S.cols(); ++j) sum += (A(i, j) = std::exp(S(i, j) - row_max));
    A.row(i) /= sum;
    for (Eigen::Index j = 0; j < S.cols(); ++j)
      if (masked && mask(i, j)) A(i, j) = 0.0;  // BUG: zeroed after normalising, never renormalised
  }
  return A;
}

}  // namespace f2

// The boolean mask is turned into an additive bias by a cast and a multiply
// by -infinity (the -1e9 idiom made "exact"). 0.0 * -inf is NaN in IEEE 754,
// so every visible logit becomes NaN whenever a mask is passed.
// Expected: mask_times_inf, or no key.
#include "attention.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  if (Q.cols() != K.cols() || K.rows() != V.rows())
    throw std::invalid_argument("Q, K, V shapes do not fit");
  Matrix S = (Q * K.transpose()) / std::sqrt(static_cast<double>(K.cols()));
  if (mask) {
    if (mask->rows() != S.rows() || mask->cols() != S.cols())
      throw std::invalid_argument("mask must be T_q x T_v");
    for (Eigen::Index i = 0; i < S.rows(); ++i)
      if (mask->row(i).all()) throw std::domain_error("a query row has every key masked");
    S += mask->cast<double>() * -std::numeric_limits<double>::infinity();
  }
  Matrix A(S.rows(), S.cols());
  for (Eigen::Index i = 0; i < S.rows(); ++i) {
    double m = -std::numeric_limits<double>::infinity(), sum = 0;
    for (Eigen::Index j = 0; j < S.cols(); ++j) m = std::fmax(m, S(i, j));
    for (Eigen::Index j = 0; j < S.cols(); ++j) sum += (A(i, j) = std::exp(S(i, j) - m));
    for (Eigen::Index j = 0; j < S.cols(); ++j) A(i, j) /= sum;
  }
  return {A * V, A};
}

}  // namespace f3

// mutant: no_max_shift_cpp
// exercise: F3
// misconception: the softmax exponentiates the raw logits; exp() overflows to inf beyond about 709 and the row becomes inf/inf = NaN.
// violates: shift invariance and the stable softmax, section 32.2.4
// caught by: oracle_agreement
// key: no_max_shift
#include "attention.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  if (K.cols() != Q.cols()) throw std::invalid_argument("d_k mismatch");
  if (V.rows() != K.rows()) throw std::invalid_argument("K and V differ in row count");
  const Eigen::Index T_q = Q.rows(), T_v = K.rows();
  if (mask && (mask->rows() != T_q || mask->cols() != T_v))
    throw std::invalid_argument("the mask is not T_q x T_v");
  const Matrix S = (Q * K.transpose()) / std::sqrt(static_cast<double>(Q.cols()));
  Matrix A(T_q, T_v);
  for (Eigen::Index i = 0; i < T_q; ++i) {
    bool any_allowed = false;
    double sum = 0.0;
    for (Eigen::Index j = 0; j < T_v; ++j) {
      const bool forbidden = mask && (*mask)(i, j);
      any_allowed = any_allowed || !forbidden;
      A(i, j) = forbidden ? 0.0 : std::exp(S(i, j));  // BUG: no row maximum subtracted
      sum += A(i, j);
    }
    if (!any_allowed)
      throw std::domain_error("query row " + std::to_string(i) + " has every key forbidden");
    A.row(i) /= sum;
  }
  return {A * V, A};
}

}  // namespace f3

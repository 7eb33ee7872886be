// Test fixture: F3 as one would write it with Eigen's array operations.
// Correct but for one thing: Eigen 3.4's vectorised .array().exp() turns
// -inf into 5.56e-309, not 0, so forbidden weights are not exact zeros.
#include "attention.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  const Eigen::Index T_q = Q.rows(), T_v = K.rows(), d_k = Q.cols();
  if (K.cols() != d_k || d_k == 0) throw std::invalid_argument("d_k mismatch");
  if (V.rows() != T_v) throw std::invalid_argument("K and V need the same number of rows");
  if (mask && (mask->rows() != T_q || mask->cols() != T_v))
    throw std::invalid_argument("the mask is not T_q x T_v");
  if (!Q.allFinite() || !K.allFinite() || !V.allFinite())
    throw std::domain_error("an input is not finite");
  constexpr double minus_inf = -std::numeric_limits<double>::infinity();
  Matrix S = (Q * K.transpose()) / std::sqrt(static_cast<double>(d_k));
  if (!S.allFinite()) throw std::domain_error("a logit overflows");
  if (mask) S = mask->select(Matrix::Constant(T_q, T_v, minus_inf), S);
  Matrix A(T_q, T_v);
  for (Eigen::Index i = 0; i < T_q; ++i) {
    const double m = S.row(i).maxCoeff();
    if (m == minus_inf)
      throw std::domain_error("query row " + std::to_string(i) + " has every key forbidden");
    A.row(i) = (S.row(i).array() - m).exp().matrix();  // exp(-inf) is 5.56e-309 here
    A.row(i) /= A.row(i).sum();
  }
  return {A * V, A};
}

}  // namespace f3

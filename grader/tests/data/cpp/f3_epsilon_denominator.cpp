// A C++ F3 attempt whose only fault is a value mistake: an epsilon (1e-12)
// added to the softmax denominator, so no row of A sums to 1. It refuses
// every faulty input as the text asks (a d_k or T_v mismatch, a mask of the
// wrong shape, a row with every key forbidden), so each refusal property
// fails on its valid case alone (refusal_counterexample_test.sh).
#include "attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  if (Q.cols() != K.cols()) throw std::invalid_argument("Q and K need the same d_k");
  if (K.rows() != V.rows()) throw std::invalid_argument("K and V need the same T_v");
  if (mask && (mask->rows() != Q.rows() || mask->cols() != K.rows()))
    throw std::invalid_argument("the mask must be T_q x T_v");
  Matrix S = Q * K.transpose() / std::sqrt(double(Q.cols()));
  Matrix A(S.rows(), S.cols());
  for (Eigen::Index i = 0; i < S.rows(); ++i) {
    double top = -std::numeric_limits<double>::infinity();
    for (Eigen::Index j = 0; j < S.cols(); ++j)
      if (!(mask && (*mask)(i, j))) top = std::max(top, S(i, j));
    if (top == -std::numeric_limits<double>::infinity())
      throw std::domain_error("a query row has every key forbidden");
    double sum = 0;
    for (Eigen::Index j = 0; j < S.cols(); ++j) {
      A(i, j) = (mask && (*mask)(i, j)) ? 0.0 : std::exp(S(i, j) - top);
      sum += A(i, j);
    }
    A.row(i) /= sum + 1e-12;  // the mistake: an epsilon "for safety"
  }
  return {A * V, A};
}

}  // namespace f3

// A C++ F3 attempt written for self-attention only: it refuses every
// faulty input as the text asks (a d_k or T_v mismatch, a mask of the wrong
// shape, a row with every key forbidden), but also any Q with T_q != T_v,
// which is valid (Lemma 1). So each refusal property fails on the valid
// case its faulty input was made from, when that case has T_q != T_v
// (refusal_counterexample_test.sh).
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
  if (Q.rows() != K.rows())  // the mistake: T_q != T_v is valid
    throw std::invalid_argument("self-attention needs as many queries as keys");
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
    A.row(i) /= sum;
  }
  return {A * V, A};
}

}  // namespace f3

// Masking done right (-inf before a stable softmax, std::exp per entry),
// but a query row with every key masked falls back to a uniform average
// over all keys "so that the output stays defined", instead of throwing.
// Expected: fully_forbidden_answered (uniform), or no key.
#include "attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  if (Q.cols() != K.cols()) throw std::invalid_argument("d_k mismatch between Q and K");
  if (K.rows() != V.rows()) throw std::invalid_argument("K and V row counts differ");
  const Eigen::Index T_q = Q.rows(), T_v = K.rows();
  if (mask && (mask->rows() != T_q || mask->cols() != T_v))
    throw std::invalid_argument("mask must be T_q x T_v");
  const double ninf = -std::numeric_limits<double>::infinity();
  Matrix logits = Q * K.transpose() / std::sqrt(double(Q.cols()));
  Matrix A(T_q, T_v);
  for (Eigen::Index i = 0; i < T_q; ++i) {
    if (mask && mask->row(i).all()) {  // nothing to attend to: average everything
      A.row(i).setConstant(1.0 / double(T_v));
      continue;
    }
    double m = ninf;
    for (Eigen::Index j = 0; j < T_v; ++j) {
      if (mask && (*mask)(i, j)) logits(i, j) = ninf;
      m = std::max(m, logits(i, j));
    }
    double z = 0.0;
    for (Eigen::Index j = 0; j < T_v; ++j) z += (A(i, j) = std::exp(logits(i, j) - m));
    for (Eigen::Index j = 0; j < T_v; ++j) A(i, j) /= z;
  }
  return {A * V, A};
}

}  // namespace f3

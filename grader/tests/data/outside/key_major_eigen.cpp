// An Eigen implementation in the column-major habit of linear-algebra code:
// scores are K Q^T (one column per query), normalised column by column, and
// the weight matrix is returned in that layout (T_v x T_q) instead of
// T_q x T_v. O itself is right. Expected: transposed_output, or no key.
#include "attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  if (Q.cols() != K.cols()) throw std::invalid_argument("d_k of Q and K differ");
  if (K.rows() != V.rows()) throw std::invalid_argument("K and V differ in length");
  if (mask && (mask->rows() != Q.rows() || mask->cols() != K.rows()))
    throw std::invalid_argument("mask must be T_q x T_v");
  const double inv_sqrt_dk = 1.0 / std::sqrt(double(Q.cols()));
  Eigen::MatrixXd scores = (K * Q.transpose()) * inv_sqrt_dk;  // (T_v, T_q)
  Eigen::MatrixXd weights(scores.rows(), scores.cols());
  for (Eigen::Index q = 0; q < scores.cols(); ++q) {
    double m = -std::numeric_limits<double>::infinity();
    for (Eigen::Index k = 0; k < scores.rows(); ++k)
      if (!(mask && (*mask)(q, k))) m = std::max(m, scores(k, q));
    if (m == -std::numeric_limits<double>::infinity())
      throw std::domain_error("query " + std::to_string(q) + " sees no key");
    double z = 0;
    for (Eigen::Index k = 0; k < scores.rows(); ++k) {
      weights(k, q) = (mask && (*mask)(q, k)) ? 0.0 : std::exp(scores(k, q) - m);
      z += weights(k, q);
    }
    weights.col(q) /= z;
  }
  return {weights.transpose() * V, weights};
}

}  // namespace f3

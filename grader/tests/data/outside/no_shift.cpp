// The textbook formula typed in directly: forbidden logits -inf, then
// exp(S) / sum exp(S) without subtracting the row maximum, so large logits
// overflow (Inf/Inf) and very negative ones underflow (0/0).
// Expected: no_max_shift, or no key.
#include "attention.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  if (Q.cols() != K.cols() || K.rows() != V.rows()) throw std::invalid_argument("shapes");
  Matrix S = Q * K.transpose() / std::sqrt(double(Q.cols()));
  if (mask) {
    if (mask->rows() != S.rows() || mask->cols() != S.cols()) throw std::invalid_argument("mask");
    for (Eigen::Index i = 0; i < S.rows(); ++i) {
      if (mask->row(i).all()) throw std::domain_error("every key masked");
      for (Eigen::Index j = 0; j < S.cols(); ++j)
        if ((*mask)(i, j)) S(i, j) = -std::numeric_limits<double>::infinity();
    }
  }
  Matrix A(S.rows(), S.cols());
  for (Eigen::Index i = 0; i < S.rows(); ++i) {
    double sum = 0;
    for (Eigen::Index j = 0; j < S.cols(); ++j) sum += (A(i, j) = std::exp(S(i, j)));
    for (Eigen::Index j = 0; j < S.cols(); ++j) A(i, j) /= sum;
  }
  return {A * V, A};
}

}  // namespace f3

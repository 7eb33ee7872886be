// Scales the logits by 1/sqrt(number of keys) instead of 1/sqrt(d_k), a
// mix-up of dimensions seen in from-scratch code. Expected: wrong_scale, or no key.
#include "attention.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  if (Q.cols() != K.cols() || K.rows() != V.rows()) throw std::invalid_argument("shapes");
  const Eigen::Index n_keys = K.rows();
  Matrix S = Q * K.transpose() / std::sqrt(double(n_keys));
  if (mask) {
    if (mask->rows() != S.rows() || mask->cols() != S.cols()) throw std::invalid_argument("mask");
    for (Eigen::Index i = 0; i < S.rows(); ++i) {
      if (mask->row(i).all()) throw std::domain_error("every key masked");
      for (Eigen::Index j = 0; j < S.cols(); ++j)
        if ((*mask)(i, j)) S(i, j) = -std::numeric_limits<double>::infinity();
    }
  }
  Matrix A = (S.colwise() - S.rowwise().maxCoeff()).array().exp().matrix();
  A = A.array().colwise() / A.rowwise().sum().array();
  return {A * V, A};
}

}  // namespace f3

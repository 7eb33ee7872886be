// Fills forbidden logits with -1e9 and exponentiates without subtracting the
// row maximum (a textbook formula typed in directly): very negative logits
// underflow to 0/0. Expected: no_max_shift and/or finite_fill, or no key.
#include "attention.hpp"

#include <cmath>
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
        if ((*mask)(i, j)) S(i, j) = -1e9;
    }
  }
  Matrix E = S.array().exp().matrix();
  Matrix A = E.array().colwise() / E.rowwise().sum().array();
  return {A * V, A};
}

}  // namespace f3

// An Eigen softmax written for a vector and applied to the whole score
// matrix: X.maxCoeff() and E.sum() over every entry, so all rows share one
// normaliser and no row sums to 1. Expected: global_normaliser, or no key.
#include "attention.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace f3 {
namespace {

Matrix softmax(const Matrix& X) {
  const double m = X.maxCoeff();
  Matrix E = X.unaryExpr([m](double x) { return std::exp(x - m); });
  return E / E.sum();
}

}  // namespace

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  if (Q.cols() != K.cols() || K.rows() != V.rows())
    throw std::invalid_argument("Q, K, V shapes do not fit");
  Matrix S = Q * K.transpose() / std::sqrt(double(Q.cols()));
  if (mask) {
    if (mask->rows() != S.rows() || mask->cols() != S.cols())
      throw std::invalid_argument("mask must be T_q x T_v");
    for (Eigen::Index i = 0; i < S.rows(); ++i) {
      if (mask->row(i).all()) throw std::domain_error("query row with every key masked");
      for (Eigen::Index j = 0; j < S.cols(); ++j)
        if ((*mask)(i, j)) S(i, j) = -std::numeric_limits<double>::infinity();
    }
  }
  const Matrix A = softmax(S);
  return {A * V, A};
}

}  // namespace f3

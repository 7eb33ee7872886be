// Model solution of exercise F2 (section 32.2.8) in C++: the masked, stable
// softmax, implementing exercises/F2/masked_softmax.hpp.
// Grade it with:
//   attnlab grade solutions/F2/masked_softmax.cpp --answers solutions/F2/answers.json
//
// A forbidden key (mask true, or a logit of -inf) is skipped when taking the
// row maximum and gets weight exactly 0.0 (Lemma 2). The maximum over the
// allowed keys is finite whenever the row keeps a key, so every exponent
// S_ij - m_i is <= 0 and finite: nothing overflows and no NaN appears.

#include "masked_softmax.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace f2 {

Matrix masked_softmax(const Matrix& S, const Mask& mask) {
  constexpr double minus_inf = -std::numeric_limits<double>::infinity();
  const Eigen::Index T_q = S.rows(), T_v = S.cols();
  if (mask.rows() != T_q || mask.cols() != T_v) {
    throw std::invalid_argument("the mask is " + std::to_string(mask.rows()) + " x " +
                                std::to_string(mask.cols()) + " but S is " +
                                std::to_string(T_q) + " x " + std::to_string(T_v));
  }
  Matrix A = Matrix::Zero(T_q, T_v);
  for (Eigen::Index i = 0; i < T_q; ++i) {
    auto allowed = [&](Eigen::Index j) { return !mask(i, j) && S(i, j) != minus_inf; };
    // Pass 1: the maximum over the allowed keys.
    double row_max = minus_inf;
    for (Eigen::Index j = 0; j < T_v; ++j) {
      if (std::isnan(S(i, j)) || S(i, j) == std::numeric_limits<double>::infinity()) {
        throw std::domain_error("S(" + std::to_string(i) + ", " + std::to_string(j) +
                                ") is NaN or +inf, not a logit");
      }
      if (allowed(j)) row_max = std::max(row_max, S(i, j));
    }
    if (row_max == minus_inf) {
      throw std::domain_error("row " + std::to_string(i) +
                              " has every key forbidden: its softmax is undefined");
    }
    // Pass 2: shifted exponentials of the allowed keys; the forbidden stay 0.0.
    double sum = 0.0;
    for (Eigen::Index j = 0; j < T_v; ++j) {
      if (!allowed(j)) continue;
      A(i, j) = std::exp(S(i, j) - row_max);
      sum += A(i, j);
    }
    // Pass 3: normalise.
    A.row(i) /= sum;
  }
  return A;
}

}  // namespace f2

// Model solution of exercise F1 (section 32.2.8) in C++: the row-wise
// softmax, implementing exercises/F1/softmax_rows.hpp.
// Grade it with: attnlab grade solutions/F1/softmax_rows.cpp
//
// Each row is shifted by its maximum before exp (shift invariance, 32.2.4),
// so large logits cannot overflow; a logit of -inf gets exp(-inf) = 0.0
// exactly (Lemma 2); a row with no finite logit is refused.

#include "softmax_rows.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace f1 {

Matrix softmax_rows(const Matrix& S) {
  constexpr double minus_inf = -std::numeric_limits<double>::infinity();
  const Eigen::Index T_q = S.rows(), T_v = S.cols();
  Matrix A(T_q, T_v);
  for (Eigen::Index i = 0; i < T_q; ++i) {
    // Pass 1: the row maximum, and the inputs the softmax cannot take.
    double row_max = minus_inf;
    for (Eigen::Index j = 0; j < T_v; ++j) {
      const double s = S(i, j);
      if (std::isnan(s) || s == std::numeric_limits<double>::infinity()) {
        throw std::domain_error("S(" + std::to_string(i) + ", " + std::to_string(j) +
                                ") is NaN or +inf, not a logit");
      }
      row_max = std::max(row_max, s);
    }
    if (row_max == minus_inf) {
      throw std::domain_error("row " + std::to_string(i) +
                              " has every logit -inf (or no key): its softmax is undefined");
    }
    // Pass 2: shifted exponentials (each in [0, 1]) and their sum (>= 1).
    double sum = 0.0;
    for (Eigen::Index j = 0; j < T_v; ++j) {
      A(i, j) = std::exp(S(i, j) - row_max);  // exactly 0 for a -inf logit
      sum += A(i, j);
    }
    // Pass 3: normalise.
    A.row(i) /= sum;
  }
  return A;
}

}  // namespace f1

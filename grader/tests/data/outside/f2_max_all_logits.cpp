// A C-style masked softmax: the row maximum is found in the same loop that
// reads the logits, before the mask is looked at, so it includes the
// masked ones; the masked keys are then skipped in the exponentials. A
// masked logit far above the visible ones flushes them to 0 (0/0).
// Expected: max_over_forbidden, or no key (never post_softmax_renormalised:
// a row with every key masked is refused here).
#include "masked_softmax.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace f2 {

Matrix masked_softmax(const Matrix& S, const Mask& mask) {
  if (mask.rows() != S.rows() || mask.cols() != S.cols())
    throw std::invalid_argument("mask must be the shape of S");
  const Eigen::Index rows = S.rows(), cols = S.cols();
  Matrix A = Matrix::Zero(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const double* s = S.row(i).data();
    double maxval = -INFINITY;
    int visible = 0;
    for (Eigen::Index j = 0; j < cols; ++j) {
      if (s[j] > maxval) maxval = s[j];
      if (!mask(i, j) && s[j] != -INFINITY) ++visible;
    }
    if (visible == 0) throw std::domain_error("row " + std::to_string(i) + ": every key is masked");
    double sum = 0.0;
    for (Eigen::Index j = 0; j < cols; ++j) {
      if (mask(i, j) || s[j] == -INFINITY) continue;
      A(i, j) = std::exp(s[j] - maxval);
      sum += A(i, j);
    }
    for (Eigen::Index j = 0; j < cols; ++j) A(i, j) /= sum;
  }
  return A;
}

}  // namespace f2

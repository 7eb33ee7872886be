// A kernel for `attnlab check` that returns O alone, as fast kernels do: it
// never forms the weights, so it leaves AttentionResult::A empty. One pass
// over the keys per query with a running maximum (an online softmax,
// FlashAttention's order); -inf for forbidden keys before the softmax, and
// the errors exercises/F3/attention.hpp asks for.
#include "attention.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  if (Q.cols() != K.cols() || K.rows() != V.rows() || Q.cols() == 0)
    throw std::invalid_argument("inconsistent shapes");
  if (mask && (mask->rows() != Q.rows() || mask->cols() != K.rows()))
    throw std::invalid_argument("the mask is not T_q x T_v");
  if (!Q.allFinite() || !K.allFinite() || !V.allFinite())
    throw std::domain_error("a non-finite input");
  const double scale = 1 / std::sqrt(double(Q.cols()));
  AttentionResult r;
  r.O = Matrix::Zero(Q.rows(), V.cols());  // r.A stays 0 x 0: O alone
  for (Eigen::Index i = 0; i < Q.rows(); ++i) {
    double m = -std::numeric_limits<double>::infinity(), l = 0;
    for (Eigen::Index j = 0; j < K.rows(); ++j) {
      if (mask && (*mask)(i, j)) continue;
      const double s = Q.row(i).dot(K.row(j)) * scale;
      const double m_new = std::max(m, s);
      const double c = std::exp(m - m_new), p = std::exp(s - m_new);
      r.O.row(i) = r.O.row(i) * c + p * V.row(j);
      l = l * c + p;
      m = m_new;
    }
    if (l == 0) throw std::domain_error("row " + std::to_string(i) + " has every key forbidden");
    r.O.row(i) /= l;
  }
  return r;
}

}  // namespace f3

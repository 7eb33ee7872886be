#pragma once
// What every C++ zoo kernel shares (the F3 interface, exercises/F3/attention.hpp):
// the refusals of section 32.2.7 and the masked logits, so that each member
// differs from the others only in the order of its arithmetic.
#include "attention.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace zoo {

using f3::Mask;
using f3::Matrix;

/// Throws std::invalid_argument for a d_k mismatch, K and V of different
/// lengths or a mask that is not T_q x T_v; std::domain_error for a NaN or
/// Inf input or a query row whose every key is forbidden (mask true = forbidden).
inline void check_inputs(const Matrix& Q, const Matrix& K, const Matrix& V,
                         const std::optional<Mask>& mask) {
  if (K.cols() != Q.cols() || Q.cols() == 0) throw std::invalid_argument("d_k mismatch");
  if (V.rows() != K.rows()) throw std::invalid_argument("K and V need the same number of rows");
  if (mask && (mask->rows() != Q.rows() || mask->cols() != K.rows()))
    throw std::invalid_argument("the mask is not T_q x T_v");
  if (!Q.allFinite() || !K.allFinite() || !V.allFinite())
    throw std::domain_error("an input is NaN or Inf");
  if (mask)
    for (Eigen::Index i = 0; i < mask->rows(); ++i)
      if (mask->row(i).all())
        throw std::domain_error("query row " + std::to_string(i) + " has every key forbidden");
}

inline bool allowed(const std::optional<Mask>& mask, Eigen::Index i, Eigen::Index j) {
  return !mask || !(*mask)(i, j);
}

/// Throws std::domain_error when an allowed logit s is not finite.
template <class T>
T finite_logit(T s) {
  if (!std::isfinite(static_cast<double>(s))) throw std::domain_error("a logit overflows");
  return s;
}

}  // namespace zoo

#pragma once
// Input checks shared by the library's operations (private to lib/).
#include <cmath>
#include <string>

#include "attn/errors.hpp"
#include "attn/matrix.hpp"

namespace attn::detail {

/// Throws NonFiniteInputError for the first NaN or Inf of M in row-major order.
template <class T>
void require_finite(const Matrix<T>& M, const char* name, const char* where) {
  for (Index i = 0; i < M.rows(); ++i)
    for (Index j = 0; j < M.cols(); ++j)
      if (!std::isfinite(M(i, j)))
        throw NonFiniteInputError(name, i, j, static_cast<double>(M(i, j)), where);
}

/// Throws ShapeError unless the mask is T_q x T_v.
inline void require_mask_shape(const Mask& mask, Index T_q, Index T_v, const char* where) {
  if (mask.rows() != T_q || mask.cols() != T_v)
    throw ShapeError(std::string(where) + ": mask is " + shape_text(mask.rows(), mask.cols()) +
                     " but the logits are T_q x T_v = " + shape_text(T_q, T_v));
}

}  // namespace attn::detail

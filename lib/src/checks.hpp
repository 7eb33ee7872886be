#pragma once
// Input checks shared by the library's operations (private to lib/). They
// take any dense Eigen matrix M of the library's: its own Matrix<T>, or a
// caller's buffer read in place (ConstMap<T>, the tiled forward).
#include <cmath>
#include <optional>
#include <string>

#include "attn/errors.hpp"
#include "attn/matrix.hpp"

namespace attn::detail {

/// A caller's dense row-major matrix, read in place (abi.cpp).
template <class T>
using ConstMap = Eigen::Map<const Matrix<T>>;

/// Throws NonFiniteInputError for the first NaN or Inf of M in row-major order.
template <class M_>
void require_finite(const M_& M, const char* name, const char* where) {
  for (Index i = 0; i < M.rows(); ++i)
    for (Index j = 0; j < M.cols(); ++j)
      if (!std::isfinite(M(i, j)))
        throw NonFiniteInputError(name, i, j, static_cast<double>(M(i, j)), M.rows(), M.cols(),
                                  where);
}

/// Throws ShapeError unless M (named `name`) is rows x cols (`why` says what
/// that shape is), then NonFiniteInputError for its first NaN or Inf.
template <class M_>
void require_matrix(const M_& M, Index rows, Index cols, const char* name,
                    const char* where, const char* why) {
  if (M.rows() != rows || M.cols() != cols)
    throw ShapeError(std::string(where) + ": " + name + " is " + shape_text(M.rows(), M.cols()) +
                     " but must be " + shape_text(rows, cols) + " (" + why + ")");
  require_finite(M, name, where);
}

/// Throws ShapeError unless the mask is T_q x T_v.
inline void require_mask_shape(const Mask& mask, Index T_q, Index T_v, const char* where) {
  if (mask.rows() != T_q || mask.cols() != T_v)
    throw ShapeError(std::string(where) + ": mask is " + shape_text(mask.rows(), mask.cols()) +
                     " but the logits are T_q x T_v = " + shape_text(T_q, T_v));
}

/// Lemma 1's conditions on Q (T_q x d_k) and K (T_v x d_k): one d_k >= 1 and
/// finite entries. Throws ShapeError or NonFiniteInputError.
template <class MQ, class MK>
void require_query_key(const MQ& Q, const MK& K, const char* where) {
  if (Q.cols() != K.cols())
    throw ShapeError(std::string(where) + ": Q is " + shape_text(Q.rows(), Q.cols()) +
                     " and K is " + shape_text(K.rows(), K.cols()) +
                     "; both need d_k columns (Lemma 1)");
  if (Q.cols() == 0)
    throw ShapeError(std::string(where) + ": d_k = 0 (Q is " + shape_text(Q.rows(), Q.cols()) +
                     "); the scale 1/sqrt(d_k) is undefined");
  require_finite(Q, "Q", where);
  require_finite(K, "K", where);
}

/// K (T_v x d_k) and V (T_v x d_v) describe the same tokens, the mask is
/// T_q x T_v, and V is finite. Throws ShapeError or NonFiniteInputError.
template <class MK, class MV>
void require_key_value_mask(const MK& K, const MV& V, const std::optional<Mask>& mask,
                            Index T_q, const char* where) {
  if (K.rows() != V.rows())
    throw ShapeError(std::string(where) + ": K is " + shape_text(K.rows(), K.cols()) +
                     " and V is " + shape_text(V.rows(), V.cols()) +
                     "; both need T_v rows (one key and one value per token)");
  if (mask) require_mask_shape(*mask, T_q, K.rows(), where);
  require_finite(V, "V", where);
}

}  // namespace attn::detail

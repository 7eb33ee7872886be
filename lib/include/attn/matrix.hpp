#pragma once
// Matrix and mask types shared by every part of attnlab.
//
// All matrices are Eigen, dynamic-size and row-major: row i of Q, K, V, S, A, O
// is token i, as in section 32.2.2 of the text.

#include <optional>

#include <Eigen/Core>

#include "attn/abi.hpp"

namespace attn {

using Index = Eigen::Index;

/// A dense row-major matrix of scalar T (float or double).
template <class T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// A row vector of scalar T (for example one logsumexp per query row).
template <class T>
using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;

/// A boolean mask of shape T_q x T_v. true = forbidden: Mask(i, j) is true
/// iff key j may not be attended to by query i (the text's M_ij = 1,
/// section 32.2.4). PyTorch's boolean attn_mask uses the opposite polarity.
using Mask = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

namespace raw {

// The caller's Eigen objects as the compiled interface's views (abi.hpp).
// Inline, so compiled in the caller's translation unit with its own Eigen.

/// A read-only view of a row-major matrix or of a vector (n x 1).
template <class T, int R, int C, int O>
In<T> in(const Eigen::Matrix<T, R, C, O>& M) {
  static_assert(C == 1 || (O & Eigen::RowMajor), "attn::raw views are row-major");
  return {M.data(), M.rows(), M.cols()};
}

/// The view of an optional mask: nullptr for none (`slot` holds the view).
inline const MaskIn* in(const std::optional<Mask>& mask, MaskIn& slot) {
  if (!mask) return nullptr;
  slot = in(*mask);
  return &slot;
}

/// M resized to rows x cols (a negative size as 0, when it is the error the
/// library reports) and viewed as the buffer the library writes.
template <class T, int R, int C, int O>
Out<T> out(Eigen::Matrix<T, R, C, O>& M, Index rows, Index cols) {
  static_assert(C == 1 || (O & Eigen::RowMajor), "attn::raw views are row-major");
  M.resize(rows < 0 ? 0 : rows, cols < 0 ? 0 : cols);
  return {M.data(), M.rows(), M.cols()};
}

}  // namespace raw

}  // namespace attn

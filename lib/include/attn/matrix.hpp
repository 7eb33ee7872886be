#pragma once
// Matrix and mask types shared by every part of attnlab.
//
// All matrices are Eigen, dynamic-size and row-major: row i of Q, K, V, S, A, O
// is token i, as in section 32.2.2 of the text.

#include <Eigen/Core>

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

}  // namespace attn

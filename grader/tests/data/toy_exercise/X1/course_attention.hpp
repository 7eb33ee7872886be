#pragma once
// X1 (toy exercise of the tests): F3's attention under the names x1::course_attention.
// Q: T_q x d_k, K: T_v x d_k, V: T_v x d_v; mask: T_q x T_v, true = forbidden.
// Throws std::invalid_argument (or another std::exception) for a d_k mismatch
// and for a query row whose every key is forbidden.

#include <optional>

#include <Eigen/Core>

namespace x1 {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Mask = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct AttentionResult {
  Matrix O;  ///< T_q x d_v: the outputs, O = A V
  Matrix A;  ///< T_q x T_v: the attention weights
};

AttentionResult course_attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                                 const std::optional<Mask>& mask);

}  // namespace x1

#pragma once
// "Your" attention kernel: Eigen float matrices, nothing from attnlab.
#include <Eigen/Core>

using BoolMatrix = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic>;

/// O (t_q x d_v) = softmax(Q K^T / sqrt(d_k)) V for Q (t_q x d_k), K (t_v x d_k),
/// V (t_v x d_v); (*forbidden)(i, j) true excludes key j for query i (nullptr: none).
/// Throws std::invalid_argument if the shapes do not fit or a row has no allowed key.
Eigen::MatrixXf my_attention(const Eigen::MatrixXf& Q, const Eigen::MatrixXf& K,
                             const Eigen::MatrixXf& V, const BoolMatrix* forbidden);

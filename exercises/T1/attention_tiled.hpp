#pragma once
// T1 (a library operation graded like an exercise, see README.md): tiled
// attention with an online softmax, in C++, with the naive form it must
// agree with (sections 32.2.2-32.2.4; FlashAttention, Dao et al. 2022,
// Algorithm 1 and Theorem 1).
//
// Implement t1::attention_tiled and t1::attention in ONE .cpp file that
// includes this header, and grade it with
//     attnlab grade your_tiled.cpp
// The grader compiles your file with `g++ -std=c++20 -O2`, with this
// directory and Eigen on the include path, and links it with a prebuilt
// harness that holds main(): do not define main. Anything you print goes to
// the grader's stderr log, not to the protocol.

#include <optional>

#include <Eigen/Core>

namespace t1 {

/// Dense row-major matrix of doubles: row i is token i.
using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Boolean mask, T_q x T_v. mask(i, j) == true means key j is FORBIDDEN for query i.
using Mask = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct TiledResult {
  Matrix O;                   ///< T_q x d_v: the outputs, equal to attention(Q, K, V, mask).O
  Eigen::VectorXd logsumexp;  ///< T_q: log sum over allowed j of exp(S_ij), S = Q K^T / sqrt(d_k)
};

struct AttentionResult {
  Matrix O;  ///< T_q x d_v
  Matrix A;  ///< T_q x T_v
};

/// Attention computed tile by tile (tile_q query rows by tile_k key rows,
/// both >= 1; a size beyond T means one tile, one that does not divide T
/// leaves a shorter last tile) without forming the T_q x T_v logits. Per
/// query row: a running maximum m_i of the allowed logits (-inf at first), a
/// running sum l_i of exp(S_ij - m_i) and the unnormalised output row; a
/// tile that raises m_i rescales both by exp(m_old - m_new); a key tile with
/// no allowed key for a row leaves it unchanged. O_i = acc_i / l_i,
/// logsumexp_i = m_i + log l_i. Must throw for a query row whose every key
/// is forbidden.
TiledResult attention_tiled(const Matrix& Q, const Matrix& K, const Matrix& V,
                            const std::optional<Mask>& mask, Eigen::Index tile_q,
                            Eigen::Index tile_k);

/// The naive form, F3's contract: O = A V, A the masked row softmax of
/// Q K^T / sqrt(d_k). Must throw for a query row whose every key is forbidden.
AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask);

}  // namespace t1

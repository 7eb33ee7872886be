#pragma once
// Library operation B1: the backward pass of scaled dot-product attention in C++.
//
// Implement b1::attention_backward below in ONE .cpp file that includes this
// header, and grade it with
//     attnlab grade your_backward.cpp
// or check it with `attnlab check your_backward.cpp`. The grader compiles your
// file with `g++ -std=c++20 -O2`, with this directory and Eigen on the include
// path, and links it with a prebuilt harness that holds main(): do not define
// main. Anything you print goes to the grader's stderr log, not the protocol.

#include <optional>

#include <Eigen/Core>

namespace b1 {

/// Dense row-major matrix of doubles: row i is token i.
using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Boolean mask, T_q x T_v. mask(i, j) == true means key j is FORBIDDEN for
/// query i (the text's M_ij = 1), as in exercises/F3/attention.hpp.
using Mask = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct Gradients {
  Matrix dQ;  ///< T_q x d_k: d L / d Q
  Matrix dK;  ///< T_v x d_k: d L / d K
  Matrix dV;  ///< T_v x d_v: d L / d V
};

/// The gradients of L = sum(dO o O) with O = attention(Q, K, V, mask)
/// (exercises/B1/README.md; FlashAttention-2, Dao 2023, section 2.2):
///   S = scale Q K^T, S_ij = -infinity where mask(i, j) (or, when causal,
///   where j > i), P = row-wise softmax of S, O = P V;
///   dV = P^T dO,  dP = dO V^T,  D_i = sum_j dO_ij O_ij (= rowsum(dO o O)),
///   dS_ij = P_ij (dP_ij - D_i),  dQ = scale dS K,  dK = scale dS^T Q.
///
/// Shapes: Q is T_q x d_k, K is T_v x d_k, V is T_v x d_v, dO is T_q x d_v,
/// mask (if given) is T_q x T_v. scale: the logits' factor; NaN means the
/// default 1/sqrt(d_k) (the grader always passes NaN, as the Python harness
/// passes scale=None). causal: also forbid key j for query i when j > i
/// (the grader always passes false).
///
/// Must throw (any std::exception; the grader records the type and message):
/// - std::invalid_argument if the shapes do not fit;
/// - std::domain_error if some query row has every key forbidden (its
///   softmax, hence its gradient, is undefined: an error, not NaN or zeros).
Gradients attention_backward(const Matrix& Q, const Matrix& K, const Matrix& V,
                             const Matrix& dO, const std::optional<Mask>& mask, double scale,
                             bool causal);

}  // namespace b1

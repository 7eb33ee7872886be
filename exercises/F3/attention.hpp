#pragma once
// Exercise F3 (section 32.2.8): masked scaled dot-product attention in C++.
//
// Implement f3::attention below in ONE .cpp file that includes this header,
// and grade it with
//     attnlab grade your_attention.cpp
// The grader compiles your file with `g++ -std=c++20 -O2`, with this
// directory and Eigen on the include path, and links it with a prebuilt
// harness that holds main(): do not define main. Anything you print (to
// std::cout or std::cerr) goes to the grader's stderr log, not to the
// protocol, so printing while debugging is harmless.

#include <optional>

#include <Eigen/Core>

namespace f3 {

/// Dense row-major matrix of doubles: row i is token i.
using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Boolean mask, T_q x T_v. mask(i, j) == true means key j is FORBIDDEN for
/// query i (the text's M_ij = 1). PyTorch has both conventions:
/// torch.nn.functional.scaled_dot_product_attention's boolean attn_mask is
/// true = may attend (pass ~mask); torch.nn.MultiheadAttention's boolean
/// attn_mask is true = not allowed, like this one.
using Mask = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct AttentionResult {
  Matrix O;  ///< T_q x d_v: the outputs, O = A V
  Matrix A;  ///< T_q x T_v: the attention weights
};

/// Scaled dot-product attention with an optional mask (sections 32.2.2-32.2.4):
///   S = Q K^T / sqrt(d_k),
///   S_ij = -infinity wherever mask(i, j) is true (masking BEFORE the softmax),
///   A = row-wise softmax of S, computed stably (subtract the row maximum
///       taken over the allowed entries only),
///   O = A V.
///
/// Shapes: Q is T_q x d_k, K is T_v x d_k, V is T_v x d_v, mask (if given) is
/// T_q x T_v. Returns O (T_q x d_v) and A (T_q x T_v). Every row of A is
/// non-negative and sums to 1; A(i, j) is exactly 0.0 where mask(i, j) is true.
///   Beware Eigen's vectorised exp: in Eigen 3.4, .array().exp() of -infinity
///   is 5.56e-309 (a subnormal), not 0, so forbidden weights computed that way
///   are not exact zeros (exact_zeros fails with "expected 0, got 5.56e-309").
///   Use std::exp per entry, or set the forbidden weights to 0 afterwards,
///   e.g. A = forbidden.select(0.0, A).
///
/// Must throw (any std::exception; the grader records the type and message):
/// - std::invalid_argument if the shapes do not fit: Q.cols() != K.cols()
///   (d_k mismatch), K.rows() != V.rows(), or a mask that is not T_q x T_v;
/// - std::domain_error if some query row has every key forbidden (its
///   softmax is undefined: the result is an error, not NaN, not zeros, not a
///   uniform average). Name the row in the message.
AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask);

}  // namespace f3

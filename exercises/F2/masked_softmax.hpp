#pragma once
// Exercise F2 (section 32.2.8, solution 32.2.9): the masked, stable softmax
// in C++.
//
// Implement f2::masked_softmax below in ONE .cpp file that includes this
// header, and grade it (with your answers file, see README.md) with
//     attnlab grade your_masked_softmax.cpp --answers answers.json
// The grader compiles your file with `g++ -std=c++20 -O2`, with this
// directory and Eigen on the include path, and links it with a prebuilt
// harness that holds main(): do not define main. Anything you print goes to
// the grader's stderr log, not to the protocol.

#include <Eigen/Core>

namespace f2 {

/// Dense row-major matrix of doubles: row i belongs to query i, column j to key j.
using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Boolean mask, T_q x T_v. mask(i, j) == true means key j is FORBIDDEN for
/// query i (the text's M_ij = 1). PyTorch has both conventions:
/// torch.nn.functional.scaled_dot_product_attention's boolean attn_mask is
/// true = may attend (pass ~mask); torch.nn.MultiheadAttention's boolean
/// attn_mask is true = not allowed, like this one.
using Mask = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Row-wise softmax of S over the allowed keys (Lemma 2, section 32.2.4).
/// Key j is forbidden for row i if mask(i, j) is true or S(i, j) is
/// -infinity; a forbidden key behaves as a logit of -infinity. Stable form:
///   m_i  = max of S_ij over the ALLOWED j only,
///   A_ij = exp(S_ij - m_i) / sum over allowed j' of exp(S_ij' - m_i),
///   A_ij = 0.0 exactly where j is forbidden.
///   Beware Eigen's vectorised exp: in Eigen 3.4, .array().exp() of -infinity
///   is 5.56e-309 (a subnormal), not 0, so forbidden weights computed that way
///   are not exact zeros (exact_zeros fails with "expected 0, got 5.56e-309").
///   Use std::exp per entry, or set the forbidden weights to 0 afterwards,
///   e.g. A = forbidden.select(0.0, A).
///
/// S and mask are T_q x T_v (a mask with no true entry means "no mask");
/// returns A, T_q x T_v, rows non-negative and summing to 1.
/// Must throw (any std::exception; the grader records type and message):
/// - std::invalid_argument if the mask is not the shape of S;
/// - std::domain_error if some row has every key forbidden (its maximum over
///   the allowed keys would be -infinity). Name the row.
Matrix masked_softmax(const Matrix& S, const Mask& mask);

}  // namespace f2

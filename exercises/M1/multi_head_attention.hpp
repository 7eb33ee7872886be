#pragma once
// M1 (a library operation graded like an exercise, see README.md):
// multi-head self-attention in C++ (section 32.2.5).
//
// Implement m1::multi_head_attention below in ONE .cpp file that includes
// this header, and grade it with
//     attnlab grade your_heads.cpp
// The grader compiles your file with `g++ -std=c++20 -O2`, with this
// directory and Eigen on the include path, and links it with a prebuilt
// harness that holds main(): do not define main. Anything you print goes to
// the grader's stderr log, not to the protocol.

#include <optional>
#include <vector>

#include <Eigen/Core>

namespace m1 {

/// Dense row-major matrix of doubles: row t is token t.
using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Boolean mask, T x T. mask(i, j) == true means key j is FORBIDDEN for
/// query i (the text's convention; torch.nn.functional.scaled_dot_product_attention's
/// boolean attn_mask is the opposite, true = may attend, while
/// torch.nn.MultiheadAttention's boolean attn_mask is true = not allowed, like this one).
using Mask = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// One head's projections: W_Q and W_K are d_model x d_k, W_V is d_model x d_v.
struct HeadWeights {
  Matrix W_Q;
  Matrix W_K;
  Matrix W_V;
};

/// Multi-head self-attention (section 32.2.5):
///   O_i = attention(X W_Q^i, X W_K^i, X W_V^i, mask).O, with the logits
///         scaled by 1/sqrt(d_k) and the mask applied before the softmax (F3);
///   O   = [O_1, ..., O_h] W_O, head i in columns i d_v .. (i+1) d_v - 1.
///
/// Shapes: X is T x d_model, heads.size() = h >= 1, W_O is h d_v x d_out,
/// mask (if given) is T x T. Returns O, T x d_out.
///
/// Must throw (any std::exception; the grader records the type and message)
/// if some query row has every key forbidden, and should throw
/// std::invalid_argument for shapes that do not fit.
Matrix multi_head_attention(const Matrix& X, const std::vector<HeadWeights>& heads,
                            const Matrix& W_O, const std::optional<Mask>& mask);

}  // namespace m1

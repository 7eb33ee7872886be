#pragma once
// C1 (a library operation graded like an exercise, see README.md): the
// causal and padding masks of section 32.2.4, in C++.
//
// Implement c1::causal_mask and c1::padding_mask in ONE .cpp file that
// includes this header, and grade it with
//     attnlab grade your_masks.cpp
// The grader compiles your file with `g++ -std=c++20 -O2`, with this
// directory and Eigen on the include path, and links it with a prebuilt
// harness that holds main(): do not define main.

#include <Eigen/Core>

namespace c1 {

/// Boolean mask, T_q x T_v. mask(i, j) == true means key j is FORBIDDEN for
/// query i (the text's convention; torch.nn.functional.scaled_dot_product_attention's
/// boolean attn_mask is the opposite, true = may attend, while
/// torch.nn.MultiheadAttention's boolean attn_mask is true = not allowed, like this one).
using Mask = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

enum class Alignment {
  top_left,      ///< key j forbidden for query i when j > i (the text's rule)
  bottom_right,  ///< key j forbidden when j > i + (T_v - T_q): the last query sees every key
};

/// The causal mask, T_q x T_v (section 32.2.4). With bottom_right and
/// T_q > T_v the first T_q - T_v rows are all true (by definition).
Mask causal_mask(Eigen::Index T_q, Eigen::Index T_v, Alignment alignment);

/// The padding mask, T_q x T_v: key j is forbidden for every query when
/// j >= key_length (0 <= key_length <= T_v).
Mask padding_mask(Eigen::Index T_q, Eigen::Index T_v, Eigen::Index key_length);

}  // namespace c1

#pragma once
// A counterexample as code a student can paste: the inputs written out
// exactly (17 significant digits; inf and nan spelled) and the call of the
// exercise's function, in the submission's language.
//
//   NumPy:  import numpy as np / from attention import scaled_dot_product_attention
//           Q = np.array([[1.0, 0.0], ...]) ... mask = np.array([[False, True]])
//           O, A = scaled_dot_product_attention(Q, K, V, mask)
//           print(A, A.sum(axis=1))
//   C++:    #include "attention.hpp" / f3::Matrix Q(2, 2); Q << 1.0, 0.0, ...;
//           f3::AttentionResult r = f3::attention(Q, K, V, mask);
//
// The operation decides the call (F1 softmax_rows, F2 masked_softmax, F3
// and F4 attention, T1 attention_tiled, M1 multi_head_attention, C1
// causal_mask / padding_mask); `exercise` names the C++ namespace.

#include <string>

#include "attn/prop/case.hpp"

namespace attn::grader {

/// Python (NumPy) lines rebuilding `c` and calling the function from
/// module `module` (the submission's file name without .py).
std::string python_reproduction(const attn::prop::Case& c, const std::string& module);

/// C++ (Eigen) lines rebuilding `c` and calling exercise `exercise`'s
/// interface (its header and namespace, exercises/FN/*.hpp).
std::string cpp_reproduction(const attn::prop::Case& c, const std::string& exercise);

}  // namespace attn::grader

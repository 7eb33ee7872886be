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

/// Python (NumPy) lines rebuilding `c` and calling the function from the
/// submission's file `file_name` (its name, beside which the lines are run):
/// `from NAME import f` when NAME.py's NAME is a Python identifier, else the
/// file loaded by path (`runpy.run_path("my-attention.py")["f"]`), which
/// takes any name. `attention_entry` (the hello's entry, e.g. "attention")
/// names the function called for the operation attention; empty: the
/// exercise's scaled_dot_product_attention.
std::string python_reproduction(const attn::prop::Case& c, const std::string& file_name,
                                const std::string& attention_entry = "");

/// C++ (Eigen) lines rebuilding `c` and calling exercise `exercise`'s
/// interface (its header and namespace, exercises/FN/*.hpp).
std::string cpp_reproduction(const attn::prop::Case& c, const std::string& exercise);

}  // namespace attn::grader

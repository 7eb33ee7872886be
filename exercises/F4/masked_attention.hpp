#pragma once
// Exercise F4 (section 32.2.8, solution 32.2.9): the corrected masking, in C++.
//
// F4 starts from exercises/F4/post_softmax_mask.cpp, which masks AFTER the
// softmax. Your submission is the corrected function: f4::attention, with
// exactly the interface of exercise F3 (exercises/F3/attention.hpp: the same
// Matrix, Mask and AttentionResult types, the same contract), in namespace
// f4. Write it in ONE .cpp file that includes this header, and grade it
// together with your answers file (README.md) with
//     attnlab grade your_fix.cpp --answers answers.json
// The grader compiles your file with `g++ -std=c++20 -O2` and links it with
// a prebuilt harness that holds main(): do not define main.

#include "../F3/attention.hpp"

namespace f4 {

using f3::AttentionResult;
using f3::Mask;
using f3::Matrix;

/// Scaled dot-product attention with the mask applied to the logits BEFORE
/// the softmax (Lemma 2): the contract of f3::attention (shapes, the stable
/// softmax, exact zeros, the errors to throw), see exercises/F3/attention.hpp.
///   Beware Eigen's vectorised exp: in Eigen 3.4, .array().exp() of -infinity
///   is 5.56e-309 (a subnormal), not 0, so forbidden weights computed that way
///   are not exact zeros (exact_zeros fails with "expected 0, got 5.56e-309").
///   Use std::exp per entry, or set the forbidden weights to 0 afterwards,
///   e.g. A = forbidden.select(0.0, A).
AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask);

}  // namespace f4

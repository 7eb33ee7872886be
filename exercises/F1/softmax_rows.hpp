#pragma once
// Exercise F1 (section 32.2.8, solution 32.2.9): the row-wise softmax in C++.
//
// Implement f1::softmax_rows below in ONE .cpp file that includes this
// header, and grade it with
//     attnlab grade your_softmax.cpp
// (the grader recognises F1 from this header; `--exercise F1` says it
// explicitly). It compiles your file with `g++ -std=c++20 -O2`, with this
// directory and Eigen on the include path, and links it with a prebuilt
// harness that holds main(): do not define main. Anything you print goes to
// the grader's stderr log, not to the protocol.

#include <Eigen/Core>

namespace f1 {

/// Dense row-major matrix of doubles. For logits S, row i belongs to query i
/// and column j to key j.
using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// The attention weights of logits S, one softmax per row (section 32.2.4):
///   A_ij = exp(S_ij) / sum_j' exp(S_ij').
///
/// S is T_q x T_v; returns A, T_q x T_v. Every A_ij >= 0 and every row sums
/// to 1 (what F1 asks you to prove).
/// - A logit of -infinity marks a forbidden key: its weight must be exactly
///   0.0 (Lemma 2), not merely small.
///   Beware Eigen's vectorised exp: in Eigen 3.4, .array().exp() of -infinity
///   is 5.56e-309 (a subnormal), not 0, so forbidden weights computed that way
///   are not exact zeros (exact_zeros fails with "expected 0, got 5.56e-309").
///   Use std::exp per entry, or set the forbidden weights to 0 afterwards,
///   e.g. A = forbidden.select(0.0, A).
/// - Compute it stably: subtract each row's maximum before exp, so logits
///   of size 1000 neither overflow nor turn into NaN (shift invariance).
/// - Must throw (any std::exception, e.g. std::domain_error) if some row
///   has every logit equal to -infinity: its softmax is undefined, and the
///   answer is an error, not NaN, not zeros, not a uniform row. Name the row.
Matrix softmax_rows(const Matrix& S);

}  // namespace f1

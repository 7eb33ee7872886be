// Exercise F4 (section 32.2.8): a DELIBERATELY WRONG implementation of
// exercises/F4/masked_attention.hpp (F3's interface in namespace f4), kept to
// show what the grader catches. F4 asks for the corrected version of this file.
//
// The bug: the softmax runs over ALL keys first, and only afterwards are the
// forbidden weights set to 0. The denominator still contains the exponentials
// of the forbidden keys, so a masked row no longer sums to 1 (in the text's
// two-token example with the causal mask, row 0 becomes (0.3302, 0) with sum
// 0.3302), O is no longer a convex combination of the allowed V rows, and a
// row with every key forbidden silently becomes all zeros instead of an error.
// The fix is to set forbidden logits to -inf BEFORE the softmax (Lemma 2).
//
// Expected: attnlab grade exercises/F4/post_softmax_mask.cpp fails the
// row_stochastic property (and others); it is recognised as F4 from the
// header it includes.

#include <cmath>
#include <stdexcept>
#include <string>

#include "masked_attention.hpp"

namespace f4 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  if (K.cols() != Q.cols()) {
    throw std::invalid_argument("d_k mismatch: Q has " + std::to_string(Q.cols()) +
                                " columns, K has " + std::to_string(K.cols()));
  }
  if (V.rows() != K.rows()) throw std::invalid_argument("K and V differ in row count");
  const Eigen::Index T_q = Q.rows(), T_v = K.rows();
  if (mask && (mask->rows() != T_q || mask->cols() != T_v)) {
    throw std::invalid_argument("the mask is not T_q x T_v");
  }
  Matrix logits = (Q * K.transpose()) / std::sqrt(static_cast<double>(Q.cols()));

  Matrix A(T_q, T_v);
  for (Eigen::Index i = 0; i < T_q; ++i) {
    const double row_max = logits.row(i).maxCoeff();  // over all keys, forbidden ones too
    for (Eigen::Index j = 0; j < T_v; ++j) A(i, j) = std::exp(logits(i, j) - row_max);
    A.row(i) /= A.row(i).sum();
  }
  if (mask) {
    for (Eigen::Index i = 0; i < T_q; ++i) {
      for (Eigen::Index j = 0; j < T_v; ++j) {
        if ((*mask)(i, j)) A(i, j) = 0.0;  // WRONG: zeroed after the softmax, not renormalised
      }
    }
  }
  return {A * V, A};
}

}  // namespace f4

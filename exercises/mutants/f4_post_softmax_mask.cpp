// mutant: post_softmax_mask_cpp
// exercise: F4
// misconception: the code F4 starts from, in C++: the softmax runs over every key and the forbidden weights are zeroed afterwards, never renormalised, so a masked row sums to less than 1.
// violates: Lemma 2 (mask before the softmax), section 32.2.4; exercise F4
// caught by: row_stochastic
// key: post_softmax_mask
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

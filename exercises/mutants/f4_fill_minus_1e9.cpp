// mutant: fill_minus_1e9
// exercise: F4
// misconception: the fix fills forbidden logits with -1e9 (a common masked_fill idiom) instead of -inf; it even refuses a fully forbidden row, but when the allowed logits are themselves below -1e9 the forbidden keys take the weight.
// violates: Lemma 2 (exact zeros need -inf), section 32.2.4
// caught by: exact_zeros
// key: finite_fill
// key parameter: fill=-1e9
// key note: refuses a fully forbidden row (accepted by the model)
#include "masked_attention.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace f4 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  if (K.cols() != Q.cols()) throw std::invalid_argument("d_k mismatch");
  if (V.rows() != K.rows()) throw std::invalid_argument("K and V differ in row count");
  const Eigen::Index T_q = Q.rows(), T_v = K.rows();
  if (mask && (mask->rows() != T_q || mask->cols() != T_v))
    throw std::invalid_argument("the mask is not T_q x T_v");
  Matrix S = (Q * K.transpose()) / std::sqrt(static_cast<double>(Q.cols()));
  Matrix A(T_q, T_v);
  for (Eigen::Index i = 0; i < T_q; ++i) {
    if (mask && mask->row(i).all())
      throw std::domain_error("query row " + std::to_string(i) + " has every key forbidden");
    if (mask)
      for (Eigen::Index j = 0; j < T_v; ++j)
        if ((*mask)(i, j)) S(i, j) = -1e9;  // BUG: a finite stand-in for -inf
    const double row_max = S.row(i).maxCoeff();
    double sum = 0.0;
    for (Eigen::Index j = 0; j < T_v; ++j) sum += (A(i, j) = std::exp(S(i, j) - row_max));
    A.row(i) /= sum;
  }
  return {A * V, A};
}

}  // namespace f4

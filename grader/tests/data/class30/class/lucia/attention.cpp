// Lucia -- F3. The softmax is in softmax.cpp.
#include "attention.hpp"

#include <cmath>
#include <stdexcept>

#include "softmax.hpp"

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  if (Q.cols() != K.cols()) throw std::invalid_argument("d_k mismatch between Q and K");
  if (V.rows() != K.rows()) throw std::invalid_argument("V and K must have T_v rows");
  Matrix S = (Q * K.transpose()) / std::sqrt(double(Q.cols()));
  Matrix A = lucia::masked_row_softmax(S, mask);
  return {A * V, A};
}

}  // namespace f3

// Test fixture: does not compile (the submission is not gradable).
#include "attention.hpp"

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  return {Q * K.transpose() * V, this_is_not_declared};
}

}  // namespace f3

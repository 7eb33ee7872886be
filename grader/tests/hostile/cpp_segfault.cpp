// exercise: F3
// expect-exit: 1
// expect-text: SIGSEGV
// Hostile: writes through a null pointer on every call.
#include "attention.hpp"

namespace f3 {
AttentionResult attention(const Matrix& Q, const Matrix&, const Matrix&, const std::optional<Mask>&) {
  volatile int* p = nullptr;
  *p = static_cast<int>(Q.rows());
  return {};
}
}  // namespace f3

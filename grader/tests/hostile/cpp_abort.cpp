// exercise: F3
// expect-exit: 1
// expect-text: SIGABRT
// Hostile: aborts on every call.
#include <cstdlib>

#include "attention.hpp"

namespace f3 {
AttentionResult attention(const Matrix&, const Matrix&, const Matrix&, const std::optional<Mask>&) {
  std::abort();
}
}  // namespace f3

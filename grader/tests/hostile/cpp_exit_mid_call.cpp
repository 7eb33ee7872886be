// exercise: F3
// expect-exit: 1
// expect-fail: oracle_agreement
// Hostile: exits the process with status 0 in the middle of a call.
#include <cstdlib>

#include "attention.hpp"

namespace f3 {
AttentionResult attention(const Matrix&, const Matrix&, const Matrix&, const std::optional<Mask>&) {
  std::exit(0);
}
}  // namespace f3

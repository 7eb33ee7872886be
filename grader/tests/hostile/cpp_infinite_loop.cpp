// exercise: F3
// expect-exit: 1
// expect-text: timed out
// args: --timeout 1 --submission-timeout 6
// Hostile: never returns.
#include "attention.hpp"

namespace f3 {
AttentionResult attention(const Matrix& Q, const Matrix&, const Matrix&, const std::optional<Mask>&) {
  volatile long n = Q.rows();
  for (;;) n = n + 1;
}
}  // namespace f3

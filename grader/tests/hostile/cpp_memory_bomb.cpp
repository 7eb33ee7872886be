// exercise: F3
// expect-exit: 1
// expect-fail: oracle_agreement
// Hostile: allocates and touches memory without end on every call.
#include <cstring>
#include <vector>

#include "attention.hpp"

namespace f3 {
AttentionResult attention(const Matrix&, const Matrix&, const Matrix&, const std::optional<Mask>&) {
  std::vector<char*> blocks;
  for (;;) {
    char* b = new char[64 << 20];
    std::memset(b, 1, 64 << 20);
    blocks.push_back(b);
  }
}
}  // namespace f3

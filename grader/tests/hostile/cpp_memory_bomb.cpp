// exercise: F3
// expect-exit: 1
// expect-fail: textbook_example
// args: --submission-timeout 60
// Hostile: allocates and touches memory without end on every call. Where
// the address-space limit stops it, each call ends in std::bad_alloc within
// a second; on a machine where page faults under the memory cgroup are slow,
// each call runs into the 10 s timeout instead, so the submission's time
// budget is what bounds it (about 24 calls would take 240 s): 60 s here.
// The first property (the text's example) fails either way; the later ones
// may be not run once the budget is spent, which depends on the machine's load.
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

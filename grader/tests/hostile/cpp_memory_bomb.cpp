// exercise: F3
// expect-exit: 1
// expect-fail: textbook_example
// args: --timeout 3 --submission-timeout 10
// Hostile: allocates and touches memory without end on every call. Where
// the address-space limit stops it, each call ends in std::bad_alloc within
// a second; on a machine where page faults under the memory cgroup are slow,
// each call runs into the timeout instead (3 s here: the allocation reaches
// the 4 GiB limit well within it where memory is fast), and the submission's
// time budget (10 s here) bounds the whole run. The first property (the
// text's example) fails either way, on its first call: the grader sends
// that call even when the budget is already spent, so its failure does not
// depend on the machine's load (it fails with a budget of 1 s too); the
// later properties may be not run once the budget is spent.
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

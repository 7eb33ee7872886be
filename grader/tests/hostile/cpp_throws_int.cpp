// exercise: F3
// expect-exit: 1
// expect-fail: oracle_agreement
// Hostile: throws an int, and an exception whose message is 0.8 MB of
// terminal escapes, in turn (twelve times the most an answer to the small
// cases can take: the reply still ends at that size, escaped).
#include <stdexcept>
#include <string>

#include "attention.hpp"

namespace f3 {
AttentionResult attention(const Matrix& Q, const Matrix&, const Matrix&, const std::optional<Mask>&) {
  if (Q.rows() % 2) throw 42;
  std::string m;
  for (int k = 0; k < (1 << 17); ++k) m += "\x1b[2J\a\n";
  throw std::runtime_error(m);
}
}  // namespace f3

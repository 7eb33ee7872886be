// Test fixture (C++, exercises/F3/attention.hpp): returns O = Q and A = K
// unchanged, so doubles can be checked bit-exactly; but if Q(0, 0) == 1234
// it writes through a null pointer (SIGSEGV), and if Q(0, 0) == 4321 it
// throws std::domain_error. Prints to std::cout and stdout on the way.
#include <cstdio>
#include <iostream>
#include <stdexcept>

#include "attention.hpp"

namespace {
struct PrintsAtStartup {
  PrintsAtStartup() { std::cout << "junk from a static initialiser" << std::endl; }
} prints_at_startup;
}  // namespace

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix&,
                          const std::optional<Mask>&) {
  std::cout << "junk from std::cout" << std::endl;
  std::printf("junk from printf\n");
  std::fflush(stdout);
  if (Q.size() > 0 && Q(0, 0) == 1234) {
    volatile int* null = nullptr;
    *null = 1;
  }
  if (Q.size() > 0 && Q(0, 0) == 4321) throw std::domain_error("row 0: every key is forbidden");
  return {Q, K};
}

}  // namespace f3

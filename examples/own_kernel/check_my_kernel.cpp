// Checks my_attention with attnlab's properties: one ctest per property
// (CMakeLists.txt), or run it by hand: check_my_kernel [--property ID]
// [--list] [--junit FILE] [--cases N] [--seed S]. Exit 0: all passed.
#include <attn/prop/check_kernel.hpp>
#include <attn/prop/kernel_subject.hpp>

#include "my_kernel.hpp"

int main(int argc, char** argv) {
  // <float>: Q, K, V arrive as float matrices and the float error bound applies.
  auto kernel = attn::prop::kernel_subject<float>(
      "my_attention", [](const auto& Q, const auto& K, const auto& V, const auto& mask) {
        if (!mask) return my_attention(Q, K, V, nullptr);
        const BoolMatrix forbidden = *mask;  // attnlab's masks are row-major
        return my_attention(Q, K, V, &forbidden);
      });
  return attn::prop::check_kernel_main(argc, argv, kernel);
}

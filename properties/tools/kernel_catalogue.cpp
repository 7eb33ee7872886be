// attnlab_kernel_catalogue: the catalogue's kernel properties for a kernel
// of `attention` (kernel_properties(), catalog.hpp), one a line: its id, a
// tab, and "weights" when it is about the weights A (Property::needs_weights:
// skipped for a kernel that returns O only) or "output". Read by the test
// of the installed package (cmake/install.cmake, cmake/run_example.cmake), so
// the tests it expects follow the catalogue.
#include <iostream>

#include "attn/prop/catalog.hpp"

int main() {
  for (const attn::prop::Property& p : attn::prop::kernel_properties())
    std::cout << p.id << '\t' << (p.needs_weights ? "weights" : "output") << '\n';
  return 0;
}

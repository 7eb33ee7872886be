#pragma once
// check_kernel's run with its counts, for check_kernel_main (which exits 77,
// ctest's skip, when the one property asked for was skipped).
#include "attn/prop/check_kernel.hpp"

namespace attn::prop::detail {

struct CheckSummary {
  int passed = 0;
  int failed = 0;  ///< failed or could not be run
  int skipped = 0;
  int exit_code = 0;  ///< check_kernel's
};

CheckSummary run_check(Subject& kernel, const CheckOptions& options);

}  // namespace attn::prop::detail

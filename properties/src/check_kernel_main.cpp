// check_kernel_main: the command line of a check program (CLI11, private to
// the library).
#include <iostream>

#include <CLI/CLI.hpp>

#include "attn/prop/check_kernel.hpp"
#include "check_kernel_run.hpp"

namespace attn::prop {

int check_kernel_main(int argc, const char* const* argv, Subject& kernel) {
  CLI::App app("Checks " + kernel.name() +
               " with attnlab's properties (docs/ARCHITECTURE.md, reference/TOLERANCE.md). "
               "Exit status: 0 every property passed, 1 one failed, 2 usage error, "
               "77 the one --property asked for does not apply.");
  CheckOptions options;
  bool list = false;
  app.add_option("--property", options.property, "run only this property (an id from --list)");
  app.add_flag("--list", list, "print the ids of the properties that apply, one a line, and exit");
  app.add_option("--junit", options.junit_path, "also write a JUnit XML report to this file");
  app.add_option("--cases", options.cases,
                 "cases per generated property (default 100, times ATTNLAB_CASES_SCALE)")
      ->check(CLI::Range(1, 100000000));
  app.add_option("--seed", options.seed, "seed of the generated cases (replays a run)")
      ->capture_default_str();
  std::string fully_forbidden = "error";
  app.add_option("--fully-forbidden", fully_forbidden,
                 "the kernel's answer for a query row with every key forbidden: error (the "
                 "text's rule), nan (PyTorch before 2.5) or zeros (flash-attention)")
      ->check(CLI::IsMember({"error", "nan", "zeros"}))
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  options.fully_forbidden = fully_forbidden == "nan"     ? FullyForbidden::nan
                            : fully_forbidden == "zeros" ? FullyForbidden::zeros
                                                         : FullyForbidden::error;
  if (list) {
    for (const Property& p : applicable_properties(kernel, options.fully_forbidden))
      std::cout << p.id << "\n";
    return 0;
  }
  const detail::CheckSummary s = detail::run_check(kernel, options);
  if (s.exit_code == 0 && !options.property.empty() && s.skipped > 0 && s.passed == 0) return 77;
  return s.exit_code;
}

}  // namespace attn::prop

#pragma once
// Checking someone else's attention kernel in one call: every property that
// applies to it, a short report, JUnit XML, an exit code for CI
// (examples/own_kernel/, docs/ARCHITECTURE.md "properties/").

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "attn/prop/property.hpp"
#include "attn/prop/catalog.hpp"
#include "attn/prop/subject.hpp"

namespace attn::prop {

/// What check_kernel runs and where it reports.
struct CheckOptions {
  /// One property by its id ("row_stochastic"); empty: every property that
  /// applies (applicable_properties).
  std::string property;
  /// Cases per generated property; 0: default_case_count() (100, scaled by
  /// the environment variable ATTNLAB_CASES_SCALE).
  int cases = 0;
  /// Replays a run (RunConfig::seed).
  std::uint64_t seed = RunConfig{}.seed;
  /// When not empty: a JUnit XML file with one <testcase> per property run
  /// (the folder is created).
  std::string junit_path;
  /// Where the report goes; nullptr: std::cout.
  std::ostream* out = nullptr;
  /// The kernel's documented answer for a query row whose every key is
  /// forbidden (an error, as the text says; NaN as PyTorch before 2.5;
  /// zeros as flash-attention and later PyTorch): the property checks it.
  FullyForbidden fully_forbidden = FullyForbidden::error;
};

/// The properties check_kernel runs on `kernel`, in report order: those of
/// kernel_properties_for(op, fully_forbidden) (catalog.hpp; the same list
/// `attnlab check` runs) for the first operation it supports of attention,
/// attention_tiled, multi_head_attention, masked_softmax, softmax_rows. The
/// properties about the weights A are listed too; they are skipped when the
/// kernel returns O only.
std::vector<Property> applicable_properties(const Subject& kernel,
                                            FullyForbidden fully_forbidden = FullyForbidden::error);

/// Runs the properties (all that apply, or options.property) on `kernel`
/// and prints one line per property to options.out ("PASS", "SKIP", or
/// "FAIL" with the verdict: shrunk counterexample, worst entry against its
/// bound, the seed), then a summary line. Writes options.junit_path when
/// set. Returns 0 when nothing failed (skips do not fail), 1 when a
/// property failed or could not be run, 2 when options.property names no
/// applicable property or the JUnit file cannot be written (said on the
/// report stream). Never throws for a failing kernel.
int check_kernel(Subject& kernel, const CheckOptions& options = {});

/// The command line of a check program (what attnlab_add_property_tests
/// runs, cmake/attnlabPropertyTests.cmake):
///   --property NAME  run one property (exit 77 when it does not apply to
///                    the kernel, ctest's skip code set by the CMake function)
///   --list           print the ids of the applicable properties, one a line
///   --junit FILE     also write JUnit XML
///   --cases N        cases per generated property (default 100, scaled by
///                    ATTNLAB_CASES_SCALE)
///   --seed S         replay a run
/// Returns check_kernel's exit code (0, 1; 2 for a usage error), or 0 for
/// --help and --list. Parses with CLI11 inside the library: a consumer
/// needs no CLI11 of its own.
int check_kernel_main(int argc, const char* const* argv, Subject& kernel);

}  // namespace attn::prop

#pragma once
// What `attnlab check` decides from a GradeResult: each property's status,
// the exit status, and the machine-readable results (--results-json). The
// format is documented in docs/MANUAL.md ("Checking your own kernel",
// "Machine-readable results").

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attn/prop/bound_stats.hpp"
#include "report/grade_result.hpp"

namespace attn::grader {

/// check's exit statuses (docs/MANUAL.md, "Exit status").
inline constexpr int kCheckPassed = 0;        ///< every property that applies passed
inline constexpr int kCheckFailed = 1;        ///< a property failed, or the kernel did not load
inline constexpr int kCheckUsage = 2;         ///< usage or infrastructure error (a bad --entry too)
inline constexpr int kCheckOutOfTime = 3;     ///< none failed, but --time-budget stopped some

/// The status of r.verdicts[k] as check reports it: "passed", "skipped",
/// "failed" (a failure, or cut short by the kernel's own restart or timeout
/// caps: it faulted too often), "error" (the grader could not run it), or
/// "not_run" (stopped by the time budget, r.budget_stop, before it failed
/// or passed). k must be a valid index of r.verdicts and r.items.
std::string check_status(const GradeResult& r, std::size_t k);

/// The ids of the properties the time budget stopped (status "not_run"), in order.
std::vector<std::string> not_run_properties(const GradeResult& r);

/// check's exit status for r: kCheckUsage for a usage or infrastructure
/// error, kCheckFailed when not gradable or a property failed (or erred),
/// kCheckOutOfTime when none did but one was not run, else kCheckPassed.
int check_exit_code(const GradeResult& r);

/// What the results file says besides the GradeResult.
struct CheckRunInfo {
  std::string kernel;           ///< the KERNEL argument as given
  std::string operation;        ///< its protocol name, "attention"
  std::string fully_forbidden;  ///< "error", "nan" or "zeros"
  std::string precision;        ///< as the report's header says it
  std::uint64_t seed = 0;
  int cases = 0;                ///< cases per property asked for
  std::optional<double> time_budget_s;  ///< --time-budget; unset: none
  attn::prop::BoundStats margin;        ///< largest error/bound of the passing comparisons
};

/// The results as JSON (nlohmann-json, 2-space indent): format
/// "attnlab-check-results/1", the run's settings, "status" and
/// "exit_status", "not_run" (ids), "margin", and "properties": one object
/// per property with name, title, source, status, summary, cases, seed,
/// seconds, "counterexample" (shape and whether generated; null without
/// one), "worst" (matrix, row, col, expected, actual, error, bound; a
/// non-finite number as the string "nan", "inf" or "-inf"), "ratio" (error
/// over bound; null without a bound), "diagnosis" and "text" (the verdict
/// as the text report prints it). docs/MANUAL.md lists every member.
std::string check_results_json(const GradeResult& r, const CheckRunInfo& info);

}  // namespace attn::grader

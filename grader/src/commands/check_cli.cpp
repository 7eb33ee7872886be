// `attnlab check KERNEL` (check_cli.hpp): the kernel's properties through
// the grader's own pieces (grade_file with a kernel pseudo-exercise: the
// submission's preparation, ProcessSubject, the time budget, the diagnosis
// stage, the JUnit writer), reported as pass/fail without points.
#include "commands/check_cli.hpp"
#include "sandbox/file_problem.hpp"
#include "commands/precision_options.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "attn/prop/bound_stats.hpp"
#include "attn/prop/catalog.hpp"
#include "attn/ref/number_format.hpp"
#include "commands/check_results.hpp"
#include "commands/cli_checks.hpp"
#include "grading/number_bounds.hpp"
#include "exercises/exercise.hpp"
#include "exercises/registry.hpp"
#include "grading/grade.hpp"
#include "report/junit_report.hpp"
#include "sandbox/atomic_file.hpp"
#include "submission/recognise.hpp"
#include "submission/submission.hpp"

namespace attn::grader {

namespace fs = std::filesystem;
using attn::prop::FullyForbidden;
using attn::prop::Operation;

struct CheckCommand {
  CLI::App* app = nullptr;
  std::string kernel;
  std::string op;  ///< empty: recognised from the file, else attention
  std::string entry;
  std::string only_property;
  std::string fully_forbidden = "error";
  PrecisionChoice precision;  ///< --precision, --accumulate (precision_options.hpp)
  attn::prop::RunConfig run;
  double timeout_s = 10.0;
  std::uint64_t memory_mib = bounds::kDefaultMemoryMib;  ///< --memory; 0: no limit
  std::optional<std::string> python;
  std::optional<std::string> junit;
  std::optional<std::string> report;
  std::optional<std::string> results_json;  ///< --results-json FILE (check_results.hpp)
  double time_budget_s = 0;                 ///< --time-budget; 0: none
  bool list_properties = false;             ///< --list-properties: print the ids, run nothing
  bool no_cache = false;                    ///< --no-cache: compile without the compiler cache
};

namespace {

/// check's default --max-seq: long rows in the thousands, where sums kept in
/// a narrow type and tiles without their rescale go far off.
constexpr attn::Index kCheckMaxSeq = 2048;

/// The operations check takes (OperationSpec::checked_as_kernel), in the
/// enumerator's order.
const std::vector<Operation>& check_operations() {
  static const std::vector<Operation> ops = [] {
    std::vector<Operation> out;
    for (const attn::prop::OperationSpec& s : attn::prop::operation_specs())
      if (s.checked_as_kernel) out.push_back(s.op);
    return out;
  }();
  return ops;
}

std::optional<Operation> operation_named(const std::string& name) {
  const auto op = attn::prop::operation_named(name);
  if (op && attn::prop::operation_spec(*op).checked_as_kernel) return op;
  return std::nullopt;
}

/// An operation no exercise serves, recognised in a Python file by its own
/// signature: `recognise` says how (the entry's parameters, or a function of
/// the operation's names it defines), else nullopt; it never runs the file.
struct KernelRecogniser {
  Operation op;
  std::optional<std::string> (*recognise)(const fs::path& file, const std::string& entry);
};
constexpr KernelRecogniser kKernelRecognisers[] = {
    {Operation::batched_attention, recognise_batched_kernel},
};

/// The C++ interface of check's operation `op` from the registry (the
/// exercise whose interface serves it, ExerciseSpec::check_serves):
/// "f3::attention (exercises/F3/attention.hpp)"; empty if it has none.
std::string cpp_interface_text(Operation op) {
  for (const ExerciseSpec& spec : exercise_specs())
    if (spec.check_serves == op && !spec.cpp.header.empty())
      return spec.cpp_entry() + " (exercises/" + spec.id + "/" + spec.cpp.header + ")";
  return {};
}

/// Every operation check takes with its C++ interface, for the help:
/// "attention: f3::attention (exercises/F3/attention.hpp); ...;
/// batched_attention: none".
std::string cpp_interfaces_text() {
  std::string text;
  for (Operation op : check_operations()) {
    const std::string cpp = cpp_interface_text(op);
    text += (text.empty() ? "" : "; ") + std::string(attn::prop::operation_name(op)) + ": " +
            (cpp.empty() ? "none" : cpp);
  }
  return text;
}

/// The operation of a check that names none.
constexpr Operation kDefaultOperation = Operation::attention;

/// The operation of a file without --op: the first of kKernelRecognisers
/// that recognises it, else the exercise its function names say
/// (recognise.hpp), else kDefaultOperation.
Operation recognised_operation(const fs::path& file, const std::string& entry, std::string& how) {
  for (const KernelRecogniser& r : kKernelRecognisers) {
    if (auto said = r.recognise(file, entry)) {
      how = "recognised: " + *said;
      return r.op;
    }
  }
  if (entry.empty()) {
    const Recognition rec = recognise_exercise(file);
    if (rec.status == Recognition::Status::recognised) {
      how = "recognised: " + rec.how;
      try {
        return load_exercise(rec.exercise).op;
      } catch (const std::exception&) {
      }
    }
  }
  how = "the default; --op names another";
  return kDefaultOperation;
}

/// One line per property, and for a failure the verdict's text (the shrunk
/// counterexample, the worst entry, the seed) with the diagnosis and hint.
void print_check_report(std::ostream& os, const GradeResult& r) {
  int passed = 0, failed = 0, skipped = 0;
  for (std::size_t k = 0; k < r.items.size() && k < r.verdicts.size(); ++k) {
    const ScoredItem& item = r.items[k];
    const attn::prop::Verdict& v = r.verdicts[k];
    const std::string status = check_status(r, k);
    if (status == "passed") {
      ++passed;
      os << "PASS  " << item.id << " (" << v.cases << (v.generated ? " cases" : " fixed cases")
         << ")\n";
      attn::prop::print_left_cases(os, v, "    ");
    } else if (status == "skipped") {
      ++skipped;
      os << "SKIP  " << item.id << ": " << item.summary << "\n";
    } else if (status == "not_run") {
      os << "NOT RUN  " << item.id << ": " << item.summary << "\n";
    } else {
      ++failed;
      os << "FAIL  " << item.id << ": " << item.summary << "\n";
      // The verdict's text (counterexample, worst entry, seed) and the
      // diagnosis; not its first line (said above), nor the student's hint
      // and the reproduction in an exercise's function names.
      std::istringstream text(item.text);
      int n = 0;
      for (std::string line; std::getline(text, line); ++n) {
        const std::size_t start = line.find_first_not_of(' ');
        const std::string body = start == std::string::npos ? "" : line.substr(start);
        if (body.rfind("hint:", 0) == 0 || body.rfind("reproduce it", 0) == 0) break;
        if (n == 0 && body.rfind("[", 0) == 0) continue;     // "[FAIL] id: title"
        if (n <= 1 && body == item.summary) continue;         // said on the FAIL line
        os << "    " << line << "\n";
      }
    }
  }
  const std::vector<std::string> not_run = not_run_properties(r);
  os << "\n" << passed << " passed, " << failed << " failed";
  if (skipped) os << ", " << skipped << " skipped";
  if (!not_run.empty()) os << ", " << not_run.size() << " not run";
  os << (failed || !not_run.empty() ? "" : (passed ? ": every property holds" : "")) << "\n";
  if (!not_run.empty()) {
    os << "not run because " << r.budget_stop << ":";
    for (const auto& id : not_run) os << " " << id;
    os << "\n";
  }
}

/// The margin (reference/TOLERANCE.md, "Two-sided evidence"): after a
/// passing oracle_agreement (backward_oracle_agreement for
/// attention_backward), the largest error/bound ratio of any output it
/// compared with the oracle (bound_stats.hpp, collected on this thread while
/// grade_file ran the properties) and the case it came from. Empty (no
/// entries) when that property failed (its failure shows its own ratio)
/// or did not run.
attn::prop::BoundStats passing_margin(const GradeResult& r, const attn::prop::BoundStats& stats) {
  const auto& items = r.items;
  const bool passed = std::any_of(items.begin(), items.end(), [](const ScoredItem& item) {
    return (item.id == "oracle_agreement" || item.id == "backward_oracle_agreement") &&
           item.status == "passed";
  });
  return passed ? stats : attn::prop::BoundStats{};
}

/// The margin's line of the text report (passing_margin); nothing without one.
void print_margin(std::ostream& os, const attn::prop::BoundStats& stats) {
  if (stats.entries == 0) return;
  std::ostringstream ratio;
  ratio.precision(3);
  ratio << stats.max_ratio;
  os << "largest error/bound over passing comparisons: " << ratio.str() << " (" << stats.where
     << "; " << stats.entries << " entries compared)\n";
}

}  // namespace

std::shared_ptr<CheckCommand> add_check_command(CLI::App& app) {
  namespace check = cli;
  auto c = std::make_shared<CheckCommand>();
  c->run.cases = attn::prop::default_case_count();
  c->app = app.add_subcommand(
      "check",
      "Check KERNEL (a Python file defining the function, a C++ file defining its "
      "operation's C++ interface, or an executable speaking attnlab-protocol/1) against every "
      "property that applies to its operation: pass/fail, no points.\n"
      "C++ interfaces: " + cpp_interfaces_text() + ".\n"
      "--op batched_attention: a Python NAME(Q, K, V, mask=None, scale=None, causal=False, "
      "alignment=\"top_left\") with Q (N, H, T_q, d_k), K (N, H_kv, T_v, d_k), "
      "V (N, H_kv, T_v, d_v), H_kv dividing H, query head h using kv head h / (H / H_kv), "
      "returning O (N, H, T_q, d_v); e.g. attnlab check gqa.py --op batched_attention "
      "--entry my_gqa.\n"
      "--op attention_backward: a Python NAME(Q, K, V, dO, mask=None, scale=None, "
      "causal=False) returning the gradients (dQ, dK, dV) of sum(dO * O) with "
      "O = attention(Q, K, V, mask) (the Python client's attnlab_check.torch_backward wraps "
      "a PyTorch forward); e.g. attnlab check grads.py --op attention_backward --entry "
      "my_backward.\n"
      "Exit status: 0 every property passed, 1 a property failed or the kernel did not "
      "load, 2 usage or infrastructure error (a function --entry names that the file does "
      "not define too), 3 none failed but --time-budget ran out before every property ran.");
  c->app->add_option("KERNEL", c->kernel, "the kernel: .py, .cpp, or an executable")->required();
  std::string ops;
  for (Operation op : check_operations()) ops += std::string(ops.empty() ? "" : ", ") + attn::prop::operation_name(op);
  c->app->add_option("--op", c->op,
                     "the kernel's operation (" + ops +
                         "); default: recognised from the file's function names, else " +
                         attn::prop::operation_name(kDefaultOperation));
  c->app->add_option("--entry", c->entry,
                     "the Python function to check (default: the operation's usual names, "
                     "e.g. scaled_dot_product_attention or attention)");
  c->app->add_option("--property", c->only_property, "run this property only");
  add_precision_options(*c->app, c->precision);
  c->app->add_option("--fully-forbidden", c->fully_forbidden,
                     "the kernel's documented answer for a query row with every key forbidden: "
                     "error (the text's rule), nan (PyTorch before 2.5) or zeros "
                     "(flash-attention, PyTorch 2.5 on)")
      ->capture_default_str()
      ->check(CLI::IsMember({"error", "nan", "zeros"}));
  c->app->add_option("--seed", c->run.seed, "seed of the generated cases (replays a run)")
      ->capture_default_str()
      ->check(check::whole_number(bounds::kSeed));
  c->app->add_option("--cases", c->run.cases, "cases per property")
      ->capture_default_str()
      ->check(check::whole_number(bounds::kCases));
  // The shapes to cover (attn::prop::ShapeSpace): what the kernel takes.
  c->run.shapes.max_seq = kCheckMaxSeq;
  c->app->add_option("--max-seq", c->run.shapes.max_seq,
                     "longest T_q and T_v to send (long rows from 64 on test accumulation)")
      ->capture_default_str()
      ->check(check::whole_number(1, 65536));
  c->app->add_option("--head-dims", c->run.shapes.head_dims,
                     "the only head dims (d_k and d_v) to send, e.g. 64,128 (default: any, "
                     "1 to 256); other shapes are not sent")
      ->delimiter(',')
      ->check(check::whole_number(1, 4096));
  c->app->add_option("--tile-multiple", c->run.shapes.tile_multiple,
                     "send only T_q and T_v that are multiples of this (a kernel that takes "
                     "whole tiles)")
      ->capture_default_str()
      ->check(check::whole_number(1, 65536));
  c->app->add_option("--timeout", c->timeout_s, "seconds allowed per case")
      ->capture_default_str()
      ->check(check::seconds(bounds::kTimeoutSeconds, "2.5"));
  c->app->add_option("--memory", c->memory_mib,
                     "MiB of address space of the kernel's process (RLIMIT_AS), as attnlab grade's "
                     "--memory; 0: no limit (PyTorch and JAX reserve far more address space "
                     "than they use)")
      ->capture_default_str()
      ->check(check::whole_number(bounds::kCheckMemoryMib));
  c->app->add_option("--python", c->python,
                     "Python interpreter for a .py kernel (must import numpy and whatever the "
                     "kernel imports); default: /usr/bin/python3, then python3 on PATH");
  c->app->add_option("--junit", c->junit, "write JUnit XML (one testcase per property) to this file");
  c->app->add_option("--report", c->report, "also write the text report to this file");
  c->app->add_option("--results-json", c->results_json,
                     "write the verdicts as JSON to this file: one object per property with its "
                     "status, counterexample, worst entry, error/bound ratio and seed "
                     "(docs/MANUAL.md, 'Machine-readable results')");
  c->app->add_option("--time-budget", c->time_budget_s,
                     "seconds for the whole check, from start to the last property: when they "
                     "are used up, the properties not yet run are named and the exit status "
                     "is 3 (unless one failed); 0: no limit")
      ->capture_default_str()
      ->check(check::seconds(bounds::kBudgetSeconds, "600"));
  c->app->add_flag("--no-cache", c->no_cache,
                   "compile a C++ kernel without the compiler cache (also ATTNLAB_NO_CACHE=1; "
                   "its folder: ATTNLAB_CACHE_DIR; docs/MANUAL.md, 'The compiler cache')");
  c->app->add_flag("--list-properties", c->list_properties,
                   "print the ids of the properties the check would run (one a line, for --op "
                   "and --fully-forbidden) and run nothing");
  return c;
}

namespace {

/// The kernel's operation: --op (`how` "--op"), else recognised from the
/// file; nullopt, said on stderr, for an --op check does not take.
std::optional<Operation> chosen_operation(const CheckCommand& c, const std::filesystem::path& file,
                                          std::string& how) {
  if (c.op.empty()) return recognised_operation(file, c.entry, how);
  const auto named = operation_named(c.op);
  if (!named) {
    std::vector<std::string> names;
    for (Operation o : check_operations()) names.push_back(attn::prop::operation_name(o));
    const std::string near = cli::closest(c.op, names);
    std::cerr << "attnlab: check takes no operation " << c.op
              << (near.empty() ? "" : "; did you mean " + near + "?") << " (operations:";
    for (const auto& n : names) std::cerr << " " << n;
    std::cerr << ")\n";
    return std::nullopt;
  }
  how = "--op";
  return *named;
}

/// False, said on stderr, when --property names no property of the kernel's
/// operation (`options.kernel`'s list); else sets options.only_property.
bool take_only_property(const CheckCommand& c, Operation op, GradeOptions& options) {
  if (c.only_property.empty()) return true;
  std::vector<std::string> known;
  for (const auto& p : options.kernel->properties) known.push_back(p.id);
  if (std::find(known.begin(), known.end(), c.only_property) == known.end()) {
    const std::string near = cli::closest(c.only_property, known);
    std::cerr << "attnlab: no property " << c.only_property << " for operation "
              << attn::prop::operation_name(op)
              << (near.empty() ? "" : "; did you mean " + near + "?") << " (properties:";
    for (const auto& k : known) std::cerr << " " << k;
    std::cerr << ")\n";
    return false;
  }
  options.only_property = c.only_property;
  return true;
}

/// False, said on stderr, for a kernel file of a language the operation
/// (`kernel`, its pseudo-exercise: no C++ header, no C++ interface) or
/// --entry does not take.
bool language_fits(const CheckCommand& c, Operation op, const Exercise& kernel,
                   const std::filesystem::path& file) {
  if (kernel.cpp_header.empty() && detect_language(file) == Language::cpp) {
    std::cerr << "attnlab: " << attn::prop::operation_name(op)
              << " has no C++ interface: check a Python kernel "
                 "(--entry NAME) or an executable speaking attnlab-protocol/1 (grader/PROTOCOL.md)\n";
    return false;
  }
  if (!c.entry.empty() && detect_language(file) != Language::python) {
    std::cerr << "attnlab: --entry picks a Python function; a C++ kernel of "
              << attn::prop::operation_name(op) << " defines " << cpp_interface_text(op)
              << " (docs/MANUAL.md 'Checking your own kernel') and an executable says its entry "
                 "in its hello\n";
    return false;
  }
  return true;
}

/// The subject's declared precision and timeouts, and how the kernel is
/// launched: one's own kernel, not a student's, so no sandbox, and grade's
/// limits (the address space: --memory, 0 for none).
void set_subject_and_launch(const CheckCommand& c, GradeOptions& options) {
  // The declared precision: the command line over the hello over float64.
  options.subject.precision = c.precision.request();
  options.subject.call_timeout =
      std::chrono::milliseconds(static_cast<long long>(std::llround(c.timeout_s * 1000.0)));
  if (options.subject.call_timeout.count() == 0) options.subject.call_timeout = std::chrono::milliseconds(1);
  options.subject.startup_timeout =
      std::max(options.subject.startup_timeout, options.subject.call_timeout);
  options.launch.python = c.python;
  options.launch.python_entry = c.entry;
  options.launch.cpp_probe_weights = true;
  options.launch.compiler_cache = compiler_cache_from_environment(c.no_cache);
  options.launch.limits.address_space_bytes = c.memory_mib << 20;
  options.submission_timeout =
      std::chrono::milliseconds(static_cast<long long>(std::llround(c.time_budget_s * 1000.0)));
  options.budget_option = "--time-budget";
  options.brief_header = true;
}

/// The precision checked as the report says it: the hello's choice, or,
/// before the kernel's hello (it did not start), what was asked.
std::string precision_said(const CheckCommand& c, const GradeResult& result) {
  if (!result.header.precision.empty()) return result.header.precision;
  try {
    return choose_precision(c.precision.request(), Hello{}).describe();
  } catch (const std::exception&) {
    return c.precision.precision.empty() ? attn::ref::format_name(attn::ref::NumberFormat::float64)
                                        : c.precision.precision;
  }
}

/// check's text report: the kernel, operation, precision, seed and shapes,
/// then the properties' verdicts and the margin, or why the kernel was not
/// checked.
std::string check_report(const CheckCommand& c, const GradeOptions& options, Operation op,
                         const std::string& how, const GradeResult& result,
                         const attn::prop::BoundStats& margin) {
  std::ostringstream report;
  report << "attnlab check " << c.kernel << "\n"
         << "operation: " << attn::prop::operation_name(op) << " (" << how << ")";
  if (!result.header.entry.empty()) report << "; entry: " << result.header.entry;
  report << "\nprecision: " << precision_said(c, result)
         << "; fully forbidden row: " << c.fully_forbidden
         << "; seed " << c.run.seed << ", " << c.run.cases << " cases per property\n"
         << "shapes: " << options.run.shapes.describe(op) << "\n";
  if (!result.header.runtime.empty()) report << "runtime: " << result.header.runtime << "\n";
  report << "\n";
  if (result.status == GradeResult::Status::graded) {
    print_check_report(report, result);
    print_margin(report, margin);
  } else if (result.status == GradeResult::Status::not_gradable) {
    report << "the kernel " << result.not_gradable_headline << ":\n"
           << result.details << (result.details.empty() || result.details.back() == '\n' ? "" : "\n");
    if (!result.command.empty()) report << "command: " << result.command << "\n";
  }
  return report.str();
}

}  // namespace

namespace {

/// The kernel's options from the command line (GradeOptions::kernel and
/// the rest), or the exit status of a usage error, said on stderr.
std::variant<GradeOptions, int> check_options(const CheckCommand& c, Operation& op,
                                              std::string& how) {
  GradeOptions options;
  options.file = c.kernel;
  if (const auto problem = not_a_file(options.file)) {
    std::cerr << "attnlab: " << *problem << "\n";
    return kCheckUsage;
  }
  const std::optional<Operation> chosen = chosen_operation(c, options.file, how);
  if (!chosen) return kCheckUsage;
  op = *chosen;
  const FullyForbidden ff = c.fully_forbidden == "nan"     ? FullyForbidden::nan
                            : c.fully_forbidden == "zeros" ? FullyForbidden::zeros
                                                           : FullyForbidden::error;
  try {
    options.kernel = kernel_exercise(op, ff);
  } catch (const std::exception& e) {
    std::cerr << "attnlab: " << e.what() << "\n";
    return kCheckUsage;
  }
  if (!take_only_property(c, op, options) || !language_fits(c, op, *options.kernel, options.file)) return kCheckUsage;
  options.run = c.run;
  std::sort(options.run.shapes.head_dims.begin(), options.run.shapes.head_dims.end());
  if (options.run.shapes.tile_multiple > options.run.shapes.max_seq) {
    std::cerr << "attnlab: --tile-multiple " << options.run.shapes.tile_multiple
              << " is longer than --max-seq " << options.run.shapes.max_seq << "\n";
    return kCheckUsage;
  }
  set_subject_and_launch(c, options);
  return options;
}

/// Writes --report, --junit and --results-json; false, said on stderr, when one cannot be written.
bool write_outputs(const CheckCommand& c, const std::string& report, const GradeResult& result,
                   const CheckRunInfo& info) {
  try {
    if (c.report) write_file_creating_folder(*c.report, report);
    if (c.junit) write_junit(*c.junit, result);
    if (c.results_json) write_file_creating_folder(*c.results_json, check_results_json(result, info));
  } catch (const std::exception& e) {
    std::cerr << "attnlab: " << e.what() << "\n";
    return false;
  }
  return true;
}

}  // namespace

std::optional<int> run_check_command(const CheckCommand& c) {
  if (!c.app || !c.app->parsed()) return std::nullopt;
  const auto started = std::chrono::steady_clock::now();
  Operation op = kDefaultOperation;
  std::string how;
  auto made = check_options(c, op, how);
  if (const int* code = std::get_if<int>(&made)) return *code;
  GradeOptions& options = std::get<GradeOptions>(made);
  if (c.list_properties) {
    for (const auto& p : options.kernel->properties) std::cout << p.id << "\n";
    return kCheckPassed;
  }
  options.budget_start = started;

  std::ostringstream graded;  // grade's own report: not shown (it speaks of points)
  attn::prop::reset_bound_stats();
  GradeResult result = grade_file(options, graded);
  const attn::prop::BoundStats margin = passing_margin(result, attn::prop::bound_stats());
  const std::string report = check_report(c, options, op, how, result, margin);
  std::cout << report;
  if (result.status == GradeResult::Status::usage_error ||
      result.status == GradeResult::Status::infrastructure_error)
    std::cerr << "attnlab: " << result.message << "\n";
  CheckRunInfo info{c.kernel, attn::prop::operation_name(op), c.fully_forbidden,
                    precision_said(c, result), c.run.seed, c.run.cases, std::nullopt, margin};
  if (c.time_budget_s > 0) info.time_budget_s = c.time_budget_s;
  if (!write_outputs(c, report, result, info)) return kCheckUsage;
  return check_exit_code(result);
}

}  // namespace attn::grader

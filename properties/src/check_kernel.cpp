// check_kernel: the applicable properties on one kernel, a short report,
// JUnit XML, an exit code.
#include "attn/prop/check_kernel.hpp"

#include <cctype>
#include <chrono>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "attn/prop/catalog.hpp"
#include "attn/prop/junit.hpp"
#include "attn/prop/verdict.hpp"
#include "check_kernel_run.hpp"

namespace attn::prop {
namespace {

/// "attnlab.kernel.my_attention__float_": the subject's name as a JUnit classname.
std::string classname(const std::string& subject) {
  std::string name = subject;
  for (char& c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) c = '_';
  return "attnlab.kernel." + (name.empty() ? std::string("kernel") : name);
}

std::string plural(int n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

JunitTestcase testcase_of(const Verdict& v, const std::string& cls, double seconds) {
  JunitTestcase tc;
  tc.classname = cls;
  tc.name = v.property_id;
  tc.seconds = seconds;
  if (v.skipped()) {
    tc.status = JunitTestcase::Status::skipped;
    tc.message = v.error.empty() ? std::string("not applicable") : v.error;
  } else if (!v.passed()) {
    std::ostringstream text;
    print_verdict(text, v);
    tc.status = v.failure ? JunitTestcase::Status::failure : JunitTestcase::Status::error;
    tc.message = v.failure ? v.failure->summary : v.error;
    tc.type = v.property_id;
    tc.text = text.str();
  } else {
    tc.system_out = plural(v.cases, "case") + " passed";
  }
  return tc;
}

}  // namespace

std::vector<Property> applicable_properties(const Subject& kernel, FullyForbidden fully_forbidden) {
  for (const Operation op : {Operation::attention, Operation::attention_tiled,
                             Operation::multi_head_attention, Operation::masked_softmax,
                             Operation::softmax_rows})
    if (kernel.supports(op)) return kernel_properties_for(op, fully_forbidden);
  return {};
}

namespace detail {

CheckSummary run_check(Subject& kernel, const CheckOptions& options) {
  std::ostream& out = options.out ? *options.out : std::cout;
  CheckSummary summary;
  std::vector<Property> list = applicable_properties(kernel, options.fully_forbidden);
  if (!options.property.empty()) {
    std::vector<Property> one;
    for (Property& p : list)
      if (p.id == options.property) one.push_back(std::move(p));
    if (one.empty()) {
      out << "attnlab: no property '" << options.property << "' applies to " << kernel.name()
          << "; the properties that do:";
      for (const Property& p : list) out << " " << p.id;
      out << "\n";
      summary.exit_code = 2;
      return summary;
    }
    list = std::move(one);
  }

  RunConfig cfg;
  cfg.seed = options.seed;
  cfg.cases = options.cases > 0 ? options.cases : default_case_count();
  const Precision precision = kernel.precision();
  out << "attnlab check: " << kernel.name() << ", precision " << precision.name << ", "
      << list.size() << (list.size() == 1 ? " property, " : " properties, ") << cfg.cases
      << " cases each, seed " << cfg.seed << "\n";

  JunitSuite suite;
  suite.name = kernel.name();
  suite.properties = {{"subject", kernel.name()},
                      {"precision", precision.name},
                      {"seed", std::to_string(cfg.seed)},
                      {"cases", std::to_string(cfg.cases)}};
  const std::string cls = classname(kernel.name());
  for (const Property& p : list) {
    const auto start = std::chrono::steady_clock::now();
    const Verdict v = run_property(p, kernel, cfg);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    suite.cases.push_back(testcase_of(v, cls, seconds));
    if (v.skipped()) {
      ++summary.skipped;
      std::string why = v.error.empty() ? std::string("not applicable") : v.error;
      if (why.rfind("skipped: ", 0) == 0) why.erase(0, 9);
      out << "[SKIP] " << v.property_id << ": " << why << "\n";
    } else if (v.passed()) {
      ++summary.passed;
      out << "[PASS] " << v.property_id << ": " << v.title << " (" << plural(v.cases, "case") << ")\n";
      print_left_cases(out, v);
    } else {
      ++summary.failed;
      print_verdict(out, v);
    }
  }
  out << summary.passed << " passed, " << summary.failed << " failed, " << summary.skipped
      << " skipped";
  if (summary.failed > 0) out << " (replay with --seed " << cfg.seed << ")";
  out << "\n";
  summary.exit_code = summary.failed > 0 ? 1 : 0;
  if (!options.junit_path.empty()) {
    try {
      write_junit_file(options.junit_path, {suite});
    } catch (const std::exception& e) {
      out << "attnlab: " << e.what() << "\n";
      summary.exit_code = 2;
    }
  }
  return summary;
}

}  // namespace detail

int check_kernel(Subject& kernel, const CheckOptions& options) {
  return detail::run_check(kernel, options).exit_code;
}

}  // namespace attn::prop

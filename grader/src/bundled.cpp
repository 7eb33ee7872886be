// Grading the bundled submissions against their expected outcomes.
#include "attn/grader/bundled.hpp"

#include <sstream>

namespace attn::grader {

std::vector<BundledSubmission> bundled_submissions() {
  const std::string f4 = "mask applied after softmax (F4): rows no longer sum to 1";
  return {
      {"solutions/F3/attention.cpp", true, "", "model solution"},
      {"solutions/F3/attention.py", true, "", "model solution"},
      {"exercises/F4/post_softmax_mask.cpp", false, "row_stochastic", f4},
      {"exercises/F4/post_softmax_mask.py", false, "row_stochastic", f4},
  };
}

int grade_bundled(const std::filesystem::path& source_dir, const GradeOptions& base,
                  bool verbose, std::ostream& out) {
  int as_expected = 0, unexpected = 0, infrastructure = 0;
  const auto list = bundled_submissions();
  for (const auto& b : list) {
    GradeOptions options = base;
    options.file = source_dir / b.relative_path;
    options.display_name = b.relative_path;
    out << "== " << b.relative_path << " (" << b.why << "; expected: "
        << (b.expect_pass ? "every property passes" : b.must_fail + " fails") << ")\n";
    out.flush();

    std::ostringstream report;
    const GradeResult r = grade_file(options, report);
    bool ok = false;
    std::string got;
    switch (r.status) {
      case GradeResult::Status::graded:
        for (const auto& v : r.verdicts) {
          out << "   " << (v.skipped ? "SKIP " : v.passed ? "PASS " : "FAIL ") << v.property_id << "\n";
        }
        // For a deliberately wrong submission, show what the catching property saw.
        if (!b.expect_pass)
          for (const auto& v : r.verdicts)
            if (v.property_id == b.must_fail && !v.passed) {
              out << "\n";
              attn::prop::print_verdict(out, v);
              out << "\n";
            }
        got = std::to_string(r.passed) + " passed, " + std::to_string(r.failed) + " failed";
        ok = b.expect_pass ? r.failed == 0 : r.failed_property(b.must_fail);
        break;
      case GradeResult::Status::not_gradable:
        got = "not gradable: " + r.message.substr(0, r.message.find('\n'));
        break;
      case GradeResult::Status::usage_error:
      case GradeResult::Status::infrastructure_error:
        got = "could not be graded: " + r.message.substr(0, r.message.find('\n'));
        ++infrastructure;
        break;
    }
    out << "   => " << got << ": " << (ok ? "as expected" : "NOT AS EXPECTED") << "\n";
    if (verbose || !ok) {
      out << "\n" << report.str() << "\n";
    }
    out << "\n";
    (ok ? as_expected : unexpected) += 1;
  }
  out << as_expected << " of " << list.size()
      << " bundled submissions got their expected outcome\n";
  if (infrastructure > 0) return 2;
  return unexpected == 0 ? 0 : 1;
}

}  // namespace attn::grader

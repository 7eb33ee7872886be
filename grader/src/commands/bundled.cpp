// Grading the bundled submissions against their expected outcomes.
#include "commands/bundled.hpp"

#include <algorithm>
#include <sstream>

#include "exercises/exercise.hpp"

namespace attn::grader {

std::vector<BundledSubmission> bundled_submissions() {
  const std::string model = "model solution";
  const std::string answers = "model answers, graded alone";
  const std::string f4 = "mask applied after softmax (F4): rows no longer sum to 1";
  const std::string skeleton = "skeleton: refuses every case";
  const std::string empty_answers = "answers skeleton: all zeros";
  std::vector<BundledSubmission> list = {
      {"solutions/F1/softmax_rows.cpp", "F1", "", true, "", model},
      {"solutions/F1/softmax_rows.py", "F1", "", true, "", model},
      {"solutions/F2/masked_softmax.cpp", "F2", "solutions/F2/answers.json", true, "", model},
      {"solutions/F2/masked_softmax.py", "F2", "solutions/F2/answers.json", true, "", model},
      {"solutions/F2/answers.json", "F2", "", true, "", answers},
      {"solutions/F3/attention.cpp", "F3", "", true, "", model},
      {"solutions/F3/attention.py", "F3", "", true, "", model},
      {"solutions/F4/masked_attention.cpp", "F4", "solutions/F4/answers.json", true, "", model},
      {"solutions/F4/masked_attention.py", "F4", "solutions/F4/answers.json", true, "", model},
      {"solutions/F4/answers.json", "F4", "", true, "", answers},
      {"exercises/F4/post_softmax_mask.cpp", "F4", "", false, "row_stochastic", f4, true},
      {"exercises/F4/post_softmax_mask.py", "F4", "", false, "row_stochastic", f4, true},
  };
  for (const std::string id : {"F1", "F2", "F3", "F4"}) {
    for (const std::string ext : {".cpp", ".py"})
      list.push_back({"exercises/" + id + "/skeleton" + ext, id, "", false, "textbook_example",
                      skeleton});
    if (id == "F2" || id == "F4")
      list.push_back({"exercises/" + id + "/answers_skeleton.json", id, "", false,
                      kAnswersItem, empty_answers});
  }
  return list;
}

int grade_bundled(const std::filesystem::path& source_dir, const GradeOptions& base,
                  bool verbose, std::ostream& out) {
  int as_expected = 0, unexpected = 0, infrastructure = 0;
  const auto list = bundled_submissions();
  for (const auto& b : list) {
    GradeOptions options = base;
    options.file = source_dir / b.relative_path;
    options.display_name = b.relative_path;
    options.exercise = b.exercise;
    options.answers.reset();
    if (!b.answers.empty()) options.answers = source_dir / b.answers;
    out << "== " << b.relative_path << (b.answers.empty() ? "" : " --answers " + b.answers)
        << " (" << b.exercise << ", " << b.why << "; expected: "
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
        if (!b.expect_pass && b.show_catch)
          for (const auto& v : r.verdicts)
            if (v.property_id == b.must_fail && !v.passed) {
              out << "\n";
              attn::prop::print_verdict(out, v);
              out << "\n";
            }
        got = std::to_string(r.passed) + " passed, " + std::to_string(r.failed) + " failed";
        ok = b.expect_pass ? r.failed == 0 && std::none_of(r.verdicts.begin(), r.verdicts.end(),
                                                           [](const auto& v) { return v.skipped; })
                           : r.failed_property(b.must_fail);
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

// Grading the bundled submissions against their expected outcomes.
#include "commands/bundled.hpp"

#include <algorithm>
#include <sstream>

#include "exercises/exercise.hpp"
#include "exercises/registry.hpp"

namespace attn::grader {

std::vector<BundledSubmission> bundled_submissions() {
  const std::string model = "model solution";
  const std::string answers = "model answers, graded alone";
  const std::string skeleton = "skeleton: refuses every case";
  const std::string empty_answers = "answers skeleton: all zeros";
  std::vector<BundledSubmission> list, skeletons;
  // From each exercise's spec (exercises/registry.json, "bundled"): its
  // model solutions (with the model answers), the model answers alone, the
  // files bundled to fail; then the skeletons of every exercise.
  for (const auto& spec : exercise_specs()) {
    const std::string model_answers =
        spec.answers_form.empty() ? "" : "solutions/" + spec.id + "/answers.json";
    for (const auto& file : spec.bundled.solutions)
      list.push_back({file, spec.id, model_answers, true, "", model});
    if (!model_answers.empty() && !spec.bundled.solutions.empty())
      list.push_back({model_answers, spec.id, "", true, "", answers});
    for (const auto& f : spec.bundled.failing)
      list.push_back({f.file, spec.id, "", false, f.property, f.why, true});
    if (!spec.bundled.skeletons) continue;
    for (const std::string ext : {".cpp", ".py"})
      skeletons.push_back({"exercises/" + spec.id + "/skeleton" + ext, spec.id, "", false,
                           "textbook_example", skeleton});
    if (!spec.answers_form.empty())
      skeletons.push_back({"exercises/" + spec.id + "/answers_skeleton.json", spec.id, "", false,
                           kAnswersItem, empty_answers});
  }
  list.insert(list.end(), skeletons.begin(), skeletons.end());
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
          out << "   " << (v.skipped() ? "SKIP " : v.passed() ? "PASS " : "FAIL ") << v.property_id << "\n";
        }
        // For a deliberately wrong submission, show what the catching property saw.
        if (!b.expect_pass && b.show_catch)
          for (const auto& v : r.verdicts)
            if (v.property_id == b.must_fail && !v.passed()) {
              out << "\n";
              attn::prop::print_verdict(out, v);
              out << "\n";
            }
        got = std::to_string(r.passed) + " passed, " + std::to_string(r.failed) + " failed";
        ok = b.expect_pass ? r.failed == 0 && std::none_of(r.verdicts.begin(), r.verdicts.end(),
                                                           [](const auto& v) { return v.skipped(); })
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

// Grading one submission file.
#include "attn/grader/grade.hpp"

#include <algorithm>

#include "attn/grader/exercise.hpp"
#include "attn/grader/exit_status.hpp"
#include "attn/grader/text_report.hpp"
#include "attn/prop/catalog.hpp"

namespace attn::grader {

int GradeResult::exit_code() const {
  switch (status) {
    case Status::graded: return failed == 0 ? 0 : 1;
    case Status::not_gradable: return 1;
    case Status::usage_error:
    case Status::infrastructure_error: return 2;
  }
  return 2;
}

bool GradeResult::failed_property(const std::string& id) const {
  return std::any_of(verdicts.begin(), verdicts.end(),
                     [&](const auto& v) { return v.property_id == id && !v.passed; });
}

std::vector<attn::prop::Property> exercise_properties(const std::string& exercise) {
  try {
    return load_exercise(exercise).properties;
  } catch (const std::invalid_argument&) {
    return {};
  }
}

GradeResult grade_file(const GradeOptions& options, std::ostream& report) {
  GradeResult result;
  const std::string shown = options.display_name.empty() ? options.file.string()
                                                         : options.display_name;
  std::vector<attn::prop::Property> properties;
  try {
    properties = exercise_properties(options.exercise);
  } catch (const std::exception& e) {
    result.status = GradeResult::Status::infrastructure_error;
    result.message = std::string("cannot build the property list: ") + e.what();
    return result;
  }
  if (properties.empty()) {
    result.status = GradeResult::Status::usage_error;
    result.message = "exercise " + options.exercise + " is not graded yet (only F3 is)";
    return result;
  }

  LaunchOptions launch_options = options.launch;
  launch_options.exercise = options.exercise;
  const Launch launch = prepare_submission(options.file, launch_options);

  ReportHeader header;
  header.submission = shown;
  header.exercise = options.exercise;
  header.language = language_name(launch.language);
  header.runtime = launch.runtime;
  header.runtime_label = launch.language == Language::python ? "interpreter"
                         : launch.language == Language::cpp  ? "compiler"
                                                              : "runs as";
  header.seed = options.run.seed;
  header.cases = options.run.cases;
  header.timeout = describe_duration(options.subject.call_timeout);

  switch (launch.status) {
    case Launch::Status::ready:
      break;
    case Launch::Status::not_gradable:
      result.status = GradeResult::Status::not_gradable;
      result.message = launch.message;
      print_header(report, header);
      print_not_gradable(report, "did not compile", launch.message, launch.build_command);
      return result;
    case Launch::Status::usage_error:
      result.status = GradeResult::Status::usage_error;
      result.message = launch.message;
      return result;
    case Launch::Status::infrastructure_error:
      result.status = GradeResult::Status::infrastructure_error;
      result.message = launch.message;
      return result;
  }

  ProcessSubject subject(shown, launch.command, options.subject);
  if (auto why = subject.start()) {
    result.status = GradeResult::Status::not_gradable;
    result.message = *why;
    print_header(report, header);
    std::string details = "The submission " + *why + "\n";
    if (const std::string tail = subject.stderr_tail(); !tail.empty()) {
      details += "\nIts stderr (last " + std::to_string(tail.size()) + " bytes):\n" + tail;
    }
    print_not_gradable(report, "did not start", details, launch.command.display());
    return result;
  }
  header.entry = subject.hello().entry;
  if (launch.language == Language::executable && !subject.hello().runtime.empty()) {
    header.runtime = subject.hello().runtime + " (as its hello says)";
  }
  print_header(report, header);

  result.status = GradeResult::Status::graded;
  for (const auto& p : properties) {
    attn::prop::Verdict v = attn::prop::run_property(p, subject, options.run);
    attn::prop::print_verdict(report, v);
    report.flush();
    if (v.skipped) {
      // not applicable to this subject: neither passed nor failed
    } else if (v.passed) {
      ++result.passed;
    } else {
      ++result.failed;
    }
    result.verdicts.push_back(std::move(v));
  }
  subject.stop();
  if (subject.restarts() > 0 || subject.timeouts() > 0) {
    report << "\nnote: the submission was restarted " << subject.restarts()
           << " times after faults (" << subject.timeouts() << " timeouts)\n";
  }
  print_summary(report, result, subject.stderr_tail());
  return result;
}

}  // namespace attn::grader

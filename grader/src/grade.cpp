// Grading one submission file.
#include "attn/grader/grade.hpp"

#include <algorithm>
#include <chrono>

#include "attn/grader/answers.hpp"
#include "attn/grader/budget_subject.hpp"
#include "attn/grader/exercise.hpp"
#include "attn/grader/exit_status.hpp"
#include "attn/grader/guarded_run.hpp"
#include "attn/grader/recognise.hpp"
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

namespace {

/// Loads `id` into `exercise`; on failure sets result's status and message.
bool load(const std::string& id, std::optional<Exercise>& exercise, GradeResult& result) {
  try {
    exercise = load_exercise(id);
    result.exercise = id;
    return true;
  } catch (const std::invalid_argument& e) {
    result.status = GradeResult::Status::usage_error;
    result.message = e.what();
  } catch (const std::exception& e) {
    result.status = GradeResult::Status::infrastructure_error;
    result.message = std::string("cannot build the property list: ") + e.what();
  }
  return false;
}

/// A usage error if options.answers cannot serve as `exercise`'s answers.
bool answers_usable(const GradeOptions& options, const Exercise& exercise, GradeResult& result) {
  if (!options.answers) return true;
  if (auto why = answers_usage_problem(exercise, *options.answers)) {
    result.status = GradeResult::Status::usage_error;
    result.message = *why;
    return false;
  }
  return true;
}

/// `text` with every occurrence of `from` replaced by `to` (the staged copy's
/// path by the submission's name, in compiler messages).
std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  if (from.empty()) return text;
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

GradeResult grade_file(const GradeOptions& options, std::ostream& report) {
  GradeResult result;
  const std::string shown = options.display_name.empty() ? options.file.string()
                                                         : options.display_name;
  // Which exercise: --exercise, or recognised from the file (an executable: from its hello).
  std::optional<Exercise> exercise;
  bool from_hello = false;
  if (!options.exercise.empty()) {
    if (!load(options.exercise, exercise, result)) return result;
  } else {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(options.file, ec)) {
      result.status = GradeResult::Status::usage_error;
      result.message = "no such file: " + options.file.string();
      return result;
    }
    const Recognition rec = recognise_exercise(options.file);
    if (rec.status == Recognition::Status::needs_hello) {
      from_hello = true;
    } else if (rec.status != Recognition::Status::recognised) {
      result.status = GradeResult::Status::usage_error;
      result.message = rec.message;
      return result;
    } else {
      result.recognised_by = rec.how;
      if (!load(rec.exercise, exercise, result)) return result;
    }
  }
  if (is_answers_file(options.file)) {
    if (exercise) return grade_answers_file(options, *exercise, result, report);
  }
  if (exercise && !answers_usable(options, *exercise, result)) return result;

  LaunchOptions launch_options = options.launch;
  launch_options.exercise = exercise ? exercise->id : "F3";  // an executable does not use it
  // In the sandbox the submission is a private copy: nothing else of its folder is visible.
  std::optional<StagedSubmission> staged;
  std::filesystem::path file = options.file;
  if (options.sandbox) {
    const std::shared_ptr<const Sandbox> sandbox = options.sandbox;
    const int slot = options.slot;
    launch_options.wrap = [sandbox, slot](Command& c) { sandbox->apply(c, slot); };
    if (sandbox->active()) {
      try {
        staged.emplace(options.file);
        file = staged->path();
      } catch (const std::exception& e) {
        result.status = GradeResult::Status::usage_error;
        result.message = "cannot copy " + options.file.string() + ": " + e.what();
        return result;
      }
    }
  }
  Launch launch = prepare_submission(file, launch_options);
  if (staged) {
    launch.message = replace_all(launch.message, staged->path().string(), shown);
    launch.build_command = replace_all(launch.build_command, staged->path().string(), shown);
  }

  ReportHeader& header = result.header;
  header.submission = shown;
  header.exercise = exercise ? exercise->id : "not known yet (the executable says it in its hello)";
  if (exercise) header.title = exercise->title;
  header.recognised = result.recognised_by;
  header.language = language_name(launch.language);
  header.runtime = launch.runtime;
  header.runtime_label = launch.language == Language::python ? "interpreter"
                         : launch.language == Language::cpp  ? "compiler"
                                                              : "runs as";
  header.seed = options.run.seed;
  header.cases = options.run.cases;
  header.timeout = describe_duration(options.subject.call_timeout);
  header.mode = options.mode;
  header.settings_from = options.settings_from;
  header.limits = describe_limits(options);
  if (options.sandbox) {
    header.sandbox = options.sandbox->status();
    header.processes = options.sandbox->process_limit(options.slot).how;
  }

  switch (launch.status) {
    case Launch::Status::ready:
      break;
    case Launch::Status::not_gradable:
      result.status = GradeResult::Status::not_gradable;
      result.message = launch.message;
      print_header(report, header);
      report_not_gradable(report, result, "did not compile", launch.message, launch.build_command);
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
    if (staged) details = replace_all(details, staged->path().string(), shown);
    Command without_sandbox = launch.command;
    without_sandbox.prefix.clear();
    result.stderr_tail = subject.stderr_tail();
    std::string command = without_sandbox.display();
    if (staged) command = replace_all(command, staged->path().string(), shown);
    report_not_gradable(report, result, "did not start", details, command);
    return result;
  }
  if (from_hello) {
    const Recognition rec = recognise_from_hello(subject.hello());
    if (rec.status != Recognition::Status::recognised) {
      subject.stop();
      result.status = GradeResult::Status::usage_error;
      result.message = rec.message;
      return result;
    }
    result.recognised_by = rec.how;
    if (!load(rec.exercise, exercise, result) || !answers_usable(options, *exercise, result)) {
      subject.stop();
      return result;
    }
    header.exercise = exercise->id;
    header.title = exercise->title;
    header.recognised = rec.how;
  }
  header.entry = subject.hello().entry;
  if (launch.language == Language::executable && !subject.hello().runtime.empty()) {
    header.runtime = subject.hello().runtime + " (as its hello says)";
  }
  print_header(report, header);

  result.status = GradeResult::Status::graded;
  const ScoringRules rules =
      scoring_rules(*exercise, options.config.get(), options.generated_visibility);
  BudgetSubject budget(subject, options.submission_timeout);
  const auto started = std::chrono::steady_clock::now();
  for (const auto& p : exercise->properties) {
    const auto t0 = std::chrono::steady_clock::now();
    // Each property starts with fresh restart and timeout caps; a property
    // cut short by a cap or the time budget shows its real failure, or says
    // it was not run (guarded_run.hpp), never a counterexample made of cases
    // that were not run.
    subject.begin_run();
    const int subject_mark = subject.not_run(), budget_mark = budget.not_run();
    const StopCheck stopped = [&]() -> std::optional<std::string> {
      if (budget.not_run() > budget_mark) return budget.stop_reason();
      if (subject.not_run() > subject_mark) return subject.stop_reason();
      return std::nullopt;
    };
    attn::prop::RunConfig run = options.run;
    if (budget.spent()) {  // one case (refused at once) tells whether the property applies
      run.cases = 1;
      run.shrink = false;
    }
    attn::prop::Verdict v = run_guarded(p, budget, run, stopped);
    record_verdict(report, result, std::move(v), rules, seconds_since(t0));
  }
  subject.stop();
  if (exercise->has_answers) {
    record_verdict(report, result, check_answers(*exercise, options.answers), rules);
  }
  result.seconds = seconds_since(started);
  if (subject.restarts() > 0 || subject.timeouts() > 0) {
    report << "\nnote: the submission was restarted " << subject.restarts()
           << " times after faults (" << subject.timeouts()
           << " timeouts); at most " << options.subject.max_restarts << " restarts and "
           << options.subject.max_timeouts << " timeouts per property\n";
  }
  if (budget.exhausted()) {
    report << "\nnote: the submission used up its time budget of "
           << describe_duration(budget.budget()) << "; the cases after that were not run\n";
  }
  result.stderr_tail = subject.stderr_tail();
  print_summary(report, result, result.stderr_tail);
  return result;
}

}  // namespace attn::grader

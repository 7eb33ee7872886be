// Grading an answers file alone: `attnlab grade answers.json`.
#include "grading/grade_answers.hpp"
#include "grading/scoring_rules.hpp"

#include "report/scoring.hpp"
#include "report/text_report.hpp"
#include "attn/prop/verdict.hpp"

namespace attn::grader {

GradeResult grade_answers_file(const GradeOptions& options, const Exercise& exercise,
                               GradeResult result, std::ostream& report) {
  result.exercise = exercise.id;
  if (options.answers) {
    result.status = GradeResult::Status::usage_error;
    result.message = options.file.string() +
                     " is itself an answers file; --answers goes with a .py or .cpp submission";
    return result;
  }
  if (auto why = answers_usage_problem(exercise, options.file, answers_root(options, options.file))) {
    result.status = GradeResult::Status::usage_error;
    result.message = *why;
    return result;
  }
  const std::string shown = options.display_name.empty() ? options.file.string()
                                                         : options.display_name;
  report << "attnlab grade: exercise " << exercise.id << ", the answers file only\n"
         << "  submission:  " << shown << "\n";
  if (!result.recognised_by.empty()) {
    report << "  recognised:  " << exercise.id << " (" << result.recognised_by << ")\n";
  }
  report << "  checked:     against the 50-digit oracle at the text's tolerance "
         << kAnswersTolerance << "\n"
         << "  (the code of " << exercise.id
         << " is graded separately: attnlab grade CODE --answers " << shown << ")\n\n";

  attn::prop::Verdict v = check_answers(exercise, options.file, answers_root(options, options.file));
  v.subject = shown;
  result.status = GradeResult::Status::graded;
  const ScoringRules rules =
      scoring_rules(exercise, options.config.get(), options.generated_visibility);
  record_verdict(report, result, std::move(v), rules);
  // In a class (whole_exercise) the code's points count 0; alone, only the answers item.
  count_missing_part(options, exercise, true, result);
  print_summary(report, result, "");
  return result;
}

}  // namespace attn::grader

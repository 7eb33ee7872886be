#pragma once
// Grading one submission file: prepare it, run every property of the
// exercise on it, write the text report.

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "attn/grader/process_subject.hpp"
#include "attn/grader/report_header.hpp"
#include "attn/grader/sandbox.hpp"
#include "attn/grader/scoring.hpp"
#include "attn/grader/teacher_config.hpp"
#include "attn/grader/submission.hpp"
#include "attn/prop/property.hpp"
#include "attn/prop/verdict.hpp"

namespace attn::grader {

struct GradeOptions {
  std::filesystem::path file;
  /// How reports name the submission; empty: the file as given.
  std::string display_name;
  /// "F1".."F4"; empty: recognised from the file (recognise.hpp).
  std::string exercise;
  /// The answers file of F2 or F4 (answers.hpp); without one, that item is skipped.
  /// A .json `file` is itself an answers file, graded alone.
  std::optional<std::filesystem::path> answers;
  attn::prop::RunConfig run;
  SubjectOptions subject;
  LaunchOptions launch;

  // --- limits, sandbox, scoring (attnlab grade's teacher and student options)
  /// The sandbox every process of the submission (compiler included) runs
  /// in; it also sets the process limit. Null: neither (limits of `launch` only).
  std::shared_ptr<const Sandbox> sandbox;
  /// The job slot when grading in parallel (batch.hpp); picks the sandbox uid.
  int slot = 0;
  /// Wall-clock budget for the whole submission (BudgetSubject); 0: none.
  std::chrono::milliseconds submission_timeout{0};
  /// The teacher configuration (points and visibility overrides); null: none.
  std::shared_ptr<const TeacherConfig> config;
  /// Visibility of generated tests in results.json (--visibility); empty:
  /// the configuration's, else "after_published".
  std::string generated_visibility;
  /// For the report header: the mode ("student: ..."; empty: a full
  /// grading) and where the seed and case count come from.
  std::string mode;
  std::string settings_from;
};

struct GradeResult {
  enum class Status {
    graded,                ///< every property ran; see verdicts
    not_gradable,          ///< compile error, load error, no hello: the submission's fault, not a 0
    usage_error,           ///< no such file, unknown kind, unknown exercise
    infrastructure_error,  ///< no NumPy, no compiler: the grader's environment
  };
  Status status = Status::usage_error;
  std::vector<attn::prop::Verdict> verdicts;
  int passed = 0;
  int failed = 0;
  std::string message;  ///< why, when not graded
  std::string exercise;       ///< the exercise graded ("F2"), once known
  std::string recognised_by;  ///< how it was recognised; empty when --exercise said it

  // --- what the reports need (text_report, results_json, junit_report, batch)
  ReportHeader header;
  /// One per verdict, in the same order: points, visibility, hint, text.
  std::vector<ScoredItem> items;
  double score = 0;      ///< points earned by the counted items
  double max_score = 0;  ///< points of the counted items (not graded: the exercise's maximum)
  /// When not gradable: "did not compile", "did not start"; the compiler's
  /// messages or the stderr; the failing command.
  std::string not_gradable_headline;
  std::string details;
  std::string command;
  std::string stderr_tail;  ///< the submission's last stderr bytes
  double seconds = 0;       ///< wall-clock time of the grading

  /// 0 every property passed; 1 a property failed or not gradable; 2 usage
  /// or infrastructure error (DESIGN.md, "Reports").
  int exit_code() const;
  /// True if the verdict for property `id` exists and did not pass.
  bool failed_property(const std::string& id) const;
};

/// The properties that grade `exercise` (load_exercise(exercise).properties).
/// Empty for an exercise the grader does not grade.
std::vector<attn::prop::Property> exercise_properties(const std::string& exercise);

/// Grades options.file, writing the text report to `report` as it goes
/// (header, one verdict per property, the answers item for F2 and F4,
/// summary). The exercise is options.exercise or, if empty, recognised from
/// the file; a .json file is an answers file, graded alone. Usage and
/// infrastructure errors are not written: the caller prints result.message.
/// Does not throw.
GradeResult grade_file(const GradeOptions& options, std::ostream& report);

}  // namespace attn::grader

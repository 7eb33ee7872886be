#pragma once
// What grading one submission produced, as every report renders it: the
// status, the verdicts and their scored items, the header, and the details
// of a submission that could not be graded. Filled by grading/, read by
// report/ (text, results.json, JUnit) and by the batch summaries.

#include <string>
#include <vector>

#include "report/report_header.hpp"
#include "report/scoring.hpp"
#include "attn/prop/verdict.hpp"

namespace attn::grader {

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
  /// For a C++ submission: the shell line that builds and runs the report's
  /// pasted reproduction beside it (submission/cpp_build.hpp,
  /// reproduction_build_command); empty otherwise.
  std::string cpp_reproduction_build;
  double seconds = 0;       ///< wall-clock time of the grading
  /// When the submission's time budget ran out (GradeOptions::submission_timeout):
  /// BudgetSubject::stop_reason(), the very text of the Verdict::not_run of
  /// each property it stopped; empty when it did not run out.
  std::string budget_stop;
  /// Graded as the whole exercise (GradeOptions::whole_exercise): the part
  /// not handed in and its points, counted 0 and in max_score ("the answers
  /// file: 0 of 3 points"); empty when nothing is missing.
  std::string missing;
  /// The items of that missing part, each with its maximum ("answers", 3):
  /// 0 points each in the gradebook's columns, not empty cells.
  std::vector<std::pair<std::string, double>> missing_items;
  /// What of the student's folder was not read and why, as a clause
  /// ("ignored notes.py: a symbolic link to a file outside the student's
  /// folder (not followed)"; grading/class_folder.hpp, BatchInput::refused);
  /// said by the text report's note, results.json's "output" and the JUnit
  /// suite's <system-out>. Empty: nothing was refused.
  std::string refused;

  /// 0 every property passed; 1 a property failed or not gradable; 2 usage
  /// or infrastructure error (docs/ARCHITECTURE.md, "grader/").
  int exit_code() const;
  /// True if the verdict for property `id` exists and did not pass.
  bool failed_property(const std::string& id) const;
};

}  // namespace attn::grader

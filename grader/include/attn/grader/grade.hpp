#pragma once
// Grading one submission file: prepare it, run every property of the
// exercise on it, write the text report.

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "attn/grader/process_subject.hpp"
#include "attn/grader/submission.hpp"
#include "attn/prop/property.hpp"
#include "attn/prop/verdict.hpp"

namespace attn::grader {

struct GradeOptions {
  std::filesystem::path file;
  /// How reports name the submission; empty: the file as given.
  std::string display_name;
  std::string exercise = "F3";
  attn::prop::RunConfig run;
  SubjectOptions subject;
  LaunchOptions launch;
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

  /// 0 every property passed; 1 a property failed or not gradable; 2 usage
  /// or infrastructure error (DESIGN.md, "Reports").
  int exit_code() const;
  /// True if the verdict for property `id` exists and did not pass.
  bool failed_property(const std::string& id) const;
};

/// The properties that grade `exercise` ("F3": attn::prop::attention_properties()).
/// Empty for an exercise the grader does not grade yet.
std::vector<attn::prop::Property> exercise_properties(const std::string& exercise);

/// Grades options.file, writing the text report to `report` as it goes
/// (header, one verdict per property, summary). Usage and infrastructure
/// errors are not written: the caller prints result.message. Does not throw.
GradeResult grade_file(const GradeOptions& options, std::ostream& report);

}  // namespace attn::grader

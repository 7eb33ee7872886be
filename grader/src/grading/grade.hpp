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

#include "submission/process_subject.hpp"
#include "sandbox/sandbox.hpp"
#include "report/grade_result.hpp"
#include "grading/teacher_config.hpp"
#include "submission/submission.hpp"
#include "exercises/exercise.hpp"
#include "attn/prop/run_config.hpp"

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
  /// Helper files of the submission, {file, path relative to the entry's
  /// folder}: copied beside its private copy in the sandbox (class_folder.hpp).
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> helpers;
  /// The student's folder the file and its helpers were found in (a class
  /// folder, an upload, an unpacked archive): where they are staged, they are
  /// read below it without following links (sandbox.hpp StagedSubmission).
  /// Empty: a file the user named, which may be a link.
  std::filesystem::path confine_to;
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
  /// When that budget starts; unset: once the submission said hello (its
  /// preparation and start-up have limits of their own). `attnlab check
  /// --time-budget` sets the command's start, so the budget is the total.
  std::optional<std::chrono::steady_clock::time_point> budget_start;
  /// The option that set the budget, named when it runs out.
  std::string budget_option = "--submission-timeout";
  /// The teacher configuration (points and visibility overrides); null: none.
  std::shared_ptr<const TeacherConfig> config;
  /// Visibility of generated tests in results.json (--visibility); empty:
  /// the configuration's, else "after_published".
  std::string generated_visibility;
  /// For the report header: the mode ("student: ..."; empty: a full
  /// grading) and where the seed and case count come from.
  std::string mode;
  std::string settings_from;
  /// Grade only this property (--property; "answers": the answers item); empty: all.
  std::string only_property;
  /// The text report's short header (report_header.hpp: ReportHeader::brief).
  bool brief_header = false;
  /// Grade the exercise as a whole (a class folder, an upload): for F2 and
  /// F4, code without its answers file or an answers file without code is
  /// out of the exercise's full maximum, the missing part counted 0
  /// (GradeResult::missing). False (a single file): only what was given counts.
  bool whole_exercise = false;
  /// Run this exercise instead of choosing one (`attnlab check`: a kernel's
  /// property list, exercises/exercise.hpp kernel_exercise); unset: choose.
  std::optional<Exercise> kernel;
  /// What of the student's folder was not read and why (BatchInput::refused,
  /// class_folder.hpp), copied to GradeResult::refused so that the reports
  /// written by grade_and_report (an upload's results.json) say it; empty: nothing.
  std::string refused;
  /// Notes for the report header on how the file was read (a notebook's
  /// skipped IPython syntax, submission/notebook.hpp).
  std::vector<std::string> notes;
};

/// The properties that grade `exercise` (load_exercise(exercise).properties).
/// Empty for an exercise the grader does not grade.
std::vector<attn::prop::Property> exercise_properties(const std::string& exercise);

/// Grades options.file (a Jupyter notebook: its code cells, read by
/// submission/notebook.hpp; one that cannot be read is not gradable, with
/// the reason), writing the text report to `report` as it goes
/// (header, one verdict per property, the answers item for F2 and F4,
/// summary). The exercise is options.exercise or, if empty, recognised from
/// the file; a .json file is an answers file, graded alone. Usage and
/// infrastructure errors are not written: the caller prints result.message.
/// Does not throw.
GradeResult grade_file(const GradeOptions& options, std::ostream& report);

/// The folder an answers file `file` is read below (exercises/answers.hpp,
/// no link followed under it): options.confine_to when `file` lies lexically
/// below it (the student's own answers), else empty (an answers file the
/// user named: its last component is still never a symbolic link).
std::filesystem::path answers_root(const GradeOptions& options, const std::filesystem::path& file);

}  // namespace attn::grader

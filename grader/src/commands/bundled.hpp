#pragma once
// Grading the submissions bundled with attnlab (README command 1): the model
// solutions of F1-F4 (with their answers files) must get full marks; the F4
// "mask after softmax" variants must fail the row-stochastic property; the
// skeletons must fail (they refuse every case).

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "grading/grade.hpp"

namespace attn::grader {

struct BundledSubmission {
  std::string relative_path;  ///< from the source tree, "solutions/F3/attention.py"
  std::string exercise;       ///< "F3", given explicitly (recognition is tested elsewhere)
  /// The answers file graded with it (F2, F4), from the source tree; empty: none.
  std::string answers;
  bool expect_pass = true;  ///< full marks: no property failed, none skipped
  /// For an expected failure: the property that must fail ("row_stochastic").
  std::string must_fail;
  std::string why;  ///< one line for the report
  /// Print the catching property's verdict (counterexample and all) in the
  /// summary, not only in --verbose: the F4 variants, the lecture's point.
  bool show_catch = false;
};

/// From each exercise's spec (exercises/registry.json, "bundled"), in the
/// registry's order: its model solutions (with solutions/<id>/answers.json
/// when it has answers) and that answers file alone (pass), its files
/// bundled to fail (exercises/F4/post_softmax_mask.{cpp,py}: row_stochastic);
/// then the skeletons exercises/<id>/skeleton.{cpp,py} (fail
/// textbook_example) and exercises/<id>/answers_skeleton.json (fail answers).
std::vector<BundledSubmission> bundled_submissions();

/// Grades every bundled submission found below `source_dir` with `base`
/// (file and display_name are set per submission) and prints, per
/// submission, its verdict lines and whether the outcome was the expected
/// one; with `verbose`, each full report too (always for an unexpected outcome).
/// Returns 0 if every one got its expected outcome, 1 if one did not,
/// 2 if one could not be graded for infrastructure reasons.
int grade_bundled(const std::filesystem::path& source_dir, const GradeOptions& base,
                  bool verbose, std::ostream& out);

}  // namespace attn::grader

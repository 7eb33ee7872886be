#pragma once
// Grading the submissions bundled with attnlab (README command 1): the model
// solutions must pass, the F4 "mask after softmax" variants must fail the
// row-stochastic property.

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "attn/grader/grade.hpp"

namespace attn::grader {

struct BundledSubmission {
  std::string relative_path;  ///< from the source tree, "solutions/F3/attention.py"
  bool expect_pass = true;
  /// For an expected failure: the property that must fail ("row_stochastic").
  std::string must_fail;
  std::string why;  ///< one line for the report
};

/// solutions/F3/attention.{cpp,py} (pass) and exercises/F4/post_softmax_mask.{cpp,py} (fail).
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

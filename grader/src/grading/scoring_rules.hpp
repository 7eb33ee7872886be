#pragma once
// The scoring rules of one grading: the exercise's points table with the
// teacher configuration's overrides and the visibility of each item
// (report/scoring.hpp scores a verdict with them), and the last step of a
// grading that fills what the reports need.

#include <string>

#include "exercises/exercise.hpp"
#include "grading/grade.hpp"
#include "grading/teacher_config.hpp"
#include "report/scoring.hpp"

namespace attn::grader {

/// The rules for `exercise`: its points table, then the configuration's
/// visibility defaults and per-exercise overrides (config may be null), then
/// `generated_visibility` from the command line when not empty.
ScoringRules scoring_rules(const Exercise& exercise, const TeacherConfig* config,
                           const std::string& generated_visibility = "");

/// The most a submission of `exercise` can earn: the points of every
/// property and (F2, F4) of the answers item, with the configuration's
/// overrides (config may be null).
double exercise_maximum(const Exercise& exercise, const TeacherConfig* config);

/// After grade_file: scores verdicts recorded without an item (a grading
/// path that does not call record_verdict), sets max_score of a submission
/// that was not graded to the exercise's maximum, and fills the header's
/// submission and exercise if they are empty.
void complete_scoring(GradeResult& r, const GradeOptions& options);

/// With options.whole_exercise, for an exercise with an answers item (F2,
/// F4): adds the points of the part not handed in (the answers file when
/// options.answers is unset, the code when `answers_only`) to r.max_score
/// and says so in r.missing. Nothing otherwise, nor for --property.
void count_missing_part(const GradeOptions& options, const Exercise& exercise, bool answers_only,
                        GradeResult& r);

/// The limits line of the header: per submission, memory, file size.
std::string describe_limits(const GradeOptions& options);

}  // namespace attn::grader

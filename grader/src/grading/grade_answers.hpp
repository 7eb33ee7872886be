#pragma once
// Grading an answers file (F2, F4) alone: `attnlab grade answers.json`.

#include <ostream>

#include "exercises/answers.hpp"
#include "exercises/exercise.hpp"
#include "grading/grade.hpp"

namespace attn::grader {

/// Grades the answers file options.file alone, as `exercise` (the code
/// properties are not run): writes a short header and the answers verdict
/// to `report`, and returns `result` (exercise, recognised_by already set)
/// completed. A usage problem (answers_usage_problem, or --answers given
/// too) is returned as a usage error, not written. Does not throw.
GradeResult grade_answers_file(const GradeOptions& options, const Exercise& exercise,
                               GradeResult result, std::ostream& report);

}  // namespace attn::grader

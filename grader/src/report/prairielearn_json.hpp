#pragma once
// PrairieLearn's external-grader results (written to
// /grade/results/results.json; reference: PrairieLearn's documentation,
// "External grading", section "Grading results"):
//
//   {"gradable": true, "score": 0.8, "message": "...", "output": "...",
//    "tests": [{"name": "row_stochastic", "description": "<the statement>",
//               "points": 0, "max_points": 2, "message": "<one line>",
//               "output": "<verdict, counterexample, hint>"}, ...]}
//
// score is the fraction of the points (0 to 1). A submission that is not
// gradable (it does not compile, does not load) is "gradable": false with
// the reason in "format_errors", so PrairieLearn neither scores it nor
// counts the attempt. A grader error (usage, infrastructure) is gradable
// with score 0 and the reason in "message": the student sees it.
// PrairieLearn has no per-test visibility and publishes nothing later: a
// test whose visibility is not "visible" is left out of "tests" for good,
// and "message" says how many are hidden (their points still count in
// "score").

#include <filesystem>

#include <nlohmann/json.hpp>

#include "report/grade_result.hpp"
#include "report/results_json.hpp"

namespace attn::grader {

nlohmann::ordered_json prairielearn_json(const GradeResult& r);

/// The results of an upload of several exercises (results_json.hpp
/// UploadPart): "score" the graded parts' points over the sum of every
/// part's fixed maximum; "tests" each graded part's visible tests, named
/// with the exercise first ("F2 row_stochastic"), and one test of 0 points
/// out of the part's maximum for a part not gradable, not graded or not
/// uploaded; "gradable": false (its "format_errors" naming each part) only
/// when no part was graded and some part is not gradable. One part with a
/// result and no other is exactly prairielearn_json(*part.result).
nlohmann::ordered_json prairielearn_json(const std::vector<UploadPart>& parts);

/// Replaces `file` (its folder created if missing) by prairielearn_json(r)
/// whole (sandbox/atomic_file.hpp). Throws std::runtime_error naming the file
/// if it cannot be written; `file` is then as it was.
void write_prairielearn_json(const std::filesystem::path& file, const GradeResult& r);

}  // namespace attn::grader

#pragma once
// Gradescope's results.json for one graded submission:
//
//   {"score": 10, "max_score": 12, "output": "...", "visibility": "visible",
//    "stdout_visibility": "hidden", "output_format": "text", "test_output_format": "text",
//    "tests": [{"name": "row_stochastic: ...", "score": 0, "max_score": 2,
//               "status": "failed", "output": "<verdict, counterexample, hint>",
//               "visibility": "after_published",
//               "extra_data": {"misconceptions": ["wrong_scale"],
//                              "parameters": {"wrong_scale": {"scale": 0.25}},
//                              "diagnosis": "misconception", "diagnosis_text": "...",
//                              "diagnosis_cost": {"cases_sent": 9, "entries_sent": 412,
//                                                 "seconds": 0.03, "reused": false},
//                              "hint": "row_stochastic"}}, ...]}
//
// Every failed test carries extra_data: "misconceptions" lists the keys of
// misconceptions/README.md the diagnosis stage named (empty when none fits,
// for a fault, or when no diagnosis ran), "parameters" the fitted values
// (key -> {name: value}), "diagnosis" the stage's verdict name
// (diagnosis_stage.hpp, diagnosis_status_name). "withdrawn" (only when
// some name was) lists the names the diagnosis held back because another
// failure's answers contradict them: [{"name": "finite_fill (fill = -1e9)",
// "ruled_out_by": "exact_zeros"}].
//
// A skipped property is not a test (it is named in "output"). A submission
// that is not gradable, or that the grader could not grade, gets score 0 of
// the exercise's maximum, no tests, and "output" saying why. The seed of the
// generated cases appears in "output" only when generated tests are visible
// (a student who has it could replay hidden tests).

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/grade_result.hpp"

namespace attn::grader {

nlohmann::ordered_json results_json(const GradeResult& r);

/// One exercise of a student's upload that is graded as several
/// (grading/upload.hpp): its fixed maximum, as the class gradebook's column
/// has it (gradebook.hpp exercise_columns), and the grading that counts
/// for it, if anything of it was uploaded.
struct UploadPart {
  std::string exercise;  ///< "F2"
  double max_score = 0;  ///< the exercise's fixed maximum
  std::optional<GradeResult> result;  ///< the counted grading; empty: no submission
  std::string why_none;  ///< when `result` is empty: why, as a clause ("nothing of F2 was uploaded")
};

/// results.json of an upload of several exercises: "score" the sum of the
/// graded parts' scores, "max_score" the sum of every part's fixed maximum;
/// "tests" each graded part's tests, named with the exercise first ("F2
/// row_stochastic: ..."), and one test of 0 points out of the part's
/// maximum for a part not gradable, not graded or not uploaded ("F2: no
/// submission"); "output" each part's summary under its exercise;
/// "visibility" the least visible of the parts'; "execution_time"
/// `seconds`, whole. One part with a result and no other is exactly
/// results_json(*part.result).
nlohmann::ordered_json results_json(const std::vector<UploadPart>& parts, double seconds);

/// The "extra_data" object of a failed test (see above).
nlohmann::ordered_json diagnosis_extra_data(const ScoredItem& it);

/// The names a diagnosis withdrew, [{"name", "ruled_out_by"}] (empty array
/// when none: attn::mis::withdraw_contradicted).
nlohmann::ordered_json withdrawn_json(const FailureDiagnosis& d);

/// Replaces `file` (its folder created if missing) by results_json(r) whole
/// (sandbox/atomic_file.hpp). Throws std::runtime_error naming the file if it
/// cannot be written; `file` is then as it was.
void write_results_json(const std::filesystem::path& file, const GradeResult& r);

/// JSON text; invalid UTF-8 (from a submission's stderr) is replaced, never thrown on.
std::string dump_json(const nlohmann::ordered_json& j);

}  // namespace attn::grader

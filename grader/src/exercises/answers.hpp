#pragma once
// The answers file: the numbers exercises F2 and F4 ask for, written by the
// student as JSON and graded as one more item (property id "answers",
// kAnswersItem) against the oracle at the text's tolerance 1e-4.
//
//   F2: {"exercise": "F2",
//        "A_without_shift": [[a, b, c], [d, e, f]],   masked softmax of F2's S, computed directly
//        "A_with_shift":    [[a, b, c], [d, e, f]]}   the same after subtracting each row's maximum
//   F4: {"exercise": "F4", "buggy_row_sum": x}          row 0's sum after masking after the softmax
//
// Other members are ignored (a student may add "explanation": "..."). The
// file is given with `attnlab grade CODE --answers FILE`, or graded alone
// (`attnlab grade answers.json`, the exercise read from "exercise").

#include <cstddef>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>

#include "exercises/exercise.hpp"
#include "attn/prop/case.hpp"
#include "attn/prop/verdict.hpp"

namespace attn::grader {

/// The forms of answers file (ExerciseSpec::answers_form, exercises/registry.json):
/// the masked softmax of F2's S computed directly and with the max shift
/// (A_without_shift, A_with_shift), and the row sum left by masking after
/// the softmax (buggy_row_sum, F4).
inline constexpr const char* kShiftAnswers = "masked_softmax_with_and_without_shift";
inline constexpr const char* kRowSumAnswers = "post_softmax_row_sum";

/// The text's tolerance for the answers (32.2.7: 4 decimals, atol 1e-4).
inline constexpr double kAnswersTolerance = 1e-4;

/// F2's masked softmax of S = [[0, 2, -inf], [1, -1, 0]], from the oracle
/// (attn::ref::exact_masked_softmax), rounded to double. 2 x 3.
attn::prop::DMatrix f2_expected_weights();

/// F4's buggy row sum: row 0 of the two-token example (32.2.6) after the
/// causal mask is applied AFTER the softmax, i.e. the unmasked A(0, 0), from
/// the oracle (attn::ref::exact_attention), rounded to double. About 0.3302.
double f4_expected_buggy_row_sum();

/// The most an answers file may hold (a few hundred bytes in practice).
inline constexpr std::size_t kAnswersMaxBytes = 1 << 20;

/// Every function below reads an answers file with sandbox/no_follow.hpp
/// read_no_follow(file, root, kAnswersMaxBytes): never through a symbolic
/// link (the last component opened with O_NOFOLLOW; with `root`, the
/// student's folder, every component below it), never a FIFO or device,
/// at most kAnswersMaxBytes (open(2) O_NOFOLLOW).

/// The "exercise" member of an answers file, or why it cannot be read.
struct AnswersExercise {
  std::optional<std::string> exercise;  ///< "F2"
  std::string problem;  ///< when exercise is empty: not readable, not JSON, no "exercise"...
  /// Not read at all, and why (RefusedFile's words: "a.json is a symbolic
  /// link (not followed)"); also said in `problem`. Empty: it was read.
  std::string refused;
};
AnswersExercise read_answers_exercise(const std::filesystem::path& file,
                                      const std::filesystem::path& root = {});

/// The message for an answers file that is not read (`refused`:
/// AnswersExercise::refused), `shown` naming it.
std::string answers_refused_message(const std::string& shown, const std::string& refused);

/// Why `file` cannot serve as the answers of `exercise`, as a usage error
/// (the caller exits 2): the exercise takes no answers file, the file does
/// not exist, is not read (a symbolic link, a FIFO: AnswersExercise::refused,
/// named with why), or its "exercise" member names another exercise. nullopt if it
/// may be graded (a malformed file may: that is the student's answer, and
/// check_answers fails it with the reason).
std::optional<std::string> answers_usage_problem(const Exercise& exercise,
                                                 const std::filesystem::path& file,
                                                 const std::filesystem::path& root = {});

/// The answers item of `exercise` (has_answers()): a verdict with property_id
/// kAnswersItem. No file: skipped (the item is worth 0 and the report says
/// how to give one). A malformed file (not JSON, a missing member, a
/// non-number, a wrong shape) or a value further than kAnswersTolerance from
/// the oracle's: failed, with a summary saying exactly what (a file not
/// read: why). Does not throw.
attn::prop::Verdict check_answers(const Exercise& exercise,
                                  const std::optional<std::filesystem::path>& file,
                                  const std::filesystem::path& root = {});

}  // namespace attn::grader

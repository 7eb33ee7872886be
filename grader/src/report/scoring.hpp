#pragma once
// Points and partial credit: each verdict earns its item's points from the
// exercise's points table (with the teacher configuration's overrides) when
// it passes, 0 when it fails; a skipped property is not counted (neither in
// the score nor in the maximum). Also the visibility of each item in
// Gradescope's results.json: the text's examples "visible", generated tests
// "after_published" unless configured otherwise.

#include <map>
#include <optional>
#include <string>

#include "diagnosis/diagnosis_stage.hpp"
#include "diagnosis/feedback.hpp"
#include "attn/prop/verdict.hpp"

namespace attn::grader {

struct ScoringRules {
  std::map<std::string, double> points;          ///< item id -> points (table + overrides)
  std::map<std::string, std::string> visibility;  ///< item id -> visibility (overrides)
  std::string examples_visibility = "visible";
  std::string generated_visibility = "after_published";
  /// The answers item of F2 and F4: its report shows the expected numbers,
  /// so it stays hidden until the grades are published unless configured.
  std::string answers_visibility = "after_published";

  double points_for(const std::string& item) const;
  std::string visibility_for(const attn::prop::Verdict& v) const;
};

/// One graded item as every report shows it.
struct ScoredItem {
  std::string id;          ///< the property id ("row_stochastic") or "answers"
  std::string name;        ///< "row_stochastic: weights are non-negative and ..."
  std::string status;      ///< "passed", "failed", "skipped", "error"
  double points = 0;       ///< earned
  double max_points = 0;   ///< possible; 0 for a skipped item
  bool counted = true;     ///< false for a skipped item
  std::string visibility;  ///< Gradescope visibility
  std::optional<Hint> hint;
  /// The diagnosis stage's result for a failed item (diagnosis_stage.hpp);
  /// nullopt when the grading ran none (a pass, a skip, a unit test).
  std::optional<FailureDiagnosis> diagnosis;
  /// One line: the failure's summary, the error, or why it was skipped; empty for a pass.
  std::string summary;
  double seconds = 0;  ///< wall-clock time the property took (set by the grader)
  /// The verdict as text (attn::prop::print_verdict: counterexample, worst
  /// entry, seed) followed by the diagnosis (with its cost) and the hint;
  /// what results.json and JUnit carry.
  std::string text;
};

/// Scores v; `diagnosis` (the diagnosis stage's result for v, if it ran)
/// is recorded and rendered, never read for the points.
ScoredItem score_verdict(const attn::prop::Verdict& v, const ScoringRules& rules,
                         const FailureDiagnosis* diagnosis = nullptr);

/// "12", "2.5": points without trailing zeros.
std::string format_points(double p);

}  // namespace attn::grader

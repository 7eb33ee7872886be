// Points, partial credit and visibility per graded item.
#include "report/scoring.hpp"

#include <cmath>
#include <sstream>

#include "diagnosis/diagnosis_text.hpp"
#include "exercises/answers.hpp"

namespace attn::grader {

double ScoringRules::points_for(const std::string& item) const {
  auto it = points.find(item);
  return it == points.end() ? 0.0 : it->second;
}

std::string ScoringRules::visibility_for(const attn::prop::Verdict& v) const {
  if (auto it = visibility.find(v.property_id); it != visibility.end()) return it->second;
  if (v.property_id == kAnswersItem) return answers_visibility;
  return v.generated ? generated_visibility : examples_visibility;
}

std::string format_points(double p) {
  std::ostringstream os;
  if (std::abs(p - std::round(p)) < 1e-9) {
    os << static_cast<long long>(std::llround(p));
  } else {
    os.precision(4);
    os << p;
  }
  return os.str();
}

ScoredItem score_verdict(const attn::prop::Verdict& v, const ScoringRules& rules,
                         const FailureDiagnosis* diagnosis) {
  ScoredItem item;
  item.id = v.property_id;
  item.name = v.property_id + ": " + v.title;
  item.visibility = rules.visibility_for(v);
  if (v.failure) {
    item.summary = v.failure->summary;
  } else if (!v.error.empty()) {
    item.summary = v.error;
  } else if (!v.stop_reason.empty()) {
    item.summary = "not run because " + v.stop_reason;
  }
  if (v.skipped()) {
    item.status = "skipped";
    item.counted = false;
  } else {
    item.max_points = rules.points_for(v.property_id);
    if (v.passed()) {
      item.status = "passed";
      item.points = item.max_points;
    } else {
      item.status = v.status == attn::prop::VerdictStatus::error ? "error" : "failed";
      item.hint = hint_for(v);
      if (diagnosis) item.diagnosis = *diagnosis;
      // A departure at a narrower precision's rounding: the property's own
      // hint (about the logic) would claim what the answers contradict.
      if (diagnosis && !diagnosis->within_precision.empty() && (!item.hint || !item.hint->from_shape))
        item.hint = precision_hint(diagnosis->within_precision);
    }
  }
  std::ostringstream text;
  attn::prop::print_verdict(text, v);
  std::string body = text.str();
  // The diagnosis right under the failure's first line, before the
  // counterexample and its reproduction: what a student reads first on the
  // screen is what went wrong and, when a mistake was named, which.
  if (item.diagnosis) {
    const std::size_t first_line = body.find('\n');
    body.insert(first_line == std::string::npos ? body.size() : first_line + 1,
                format_diagnosis(*item.diagnosis));
  }
  if (item.hint) body += format_hint(*item.hint);
  item.text = std::move(body);
  return item;
}

}  // namespace attn::grader

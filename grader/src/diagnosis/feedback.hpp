#pragma once
// Feedback that states facts: a short hint citing the statement of the text
// to reread. A hint never guesses a misconception from the one shrunk
// counterexample (it fits many mistakes): naming one is the diagnosis
// stage's job (diagnosis_stage.hpp). From the failure's outcome come only
// certain facts (a timeout, A of shape T_v x T_q, a valid input refused,
// NotImplementedError from a skeleton); otherwise the failed property's own
// hint (Property::hint, carried by the verdict) says what it asks for, unless the
// counterexample rules out the cause it names (one head for the heads'
// order, logits that tie for the scale, one key tile for the rescale): then
// the hint "no_cause_named" says so and why.

#include <optional>
#include <string>

#include "attn/prop/verdict.hpp"

namespace attn::grader {

struct Hint {
  std::string key;            ///< stable id of the hint ("refuses_valid_input", a property id)
  std::string headline;       ///< a fact or what the property asks ("a valid input is refused")
  std::string advice;         ///< what to reread and do, one or two sentences
  std::string cites;          ///< "Lemma 2, section 32.2.4; F4"
  bool from_shape = false;    ///< read from the failure's outcome (not the property's generic hint)
};

/// The hint for a verdict that failed (nullopt for a pass or a skip).
std::optional<Hint> hint_for(const attn::prop::Verdict& v);

/// The hint for a failure whose counterexample the property accepts at the
/// error bounds of the narrower precision `precision` ("float32";
/// FailureDiagnosis::within_precision): the departure is that precision's
/// rounding, so the property's own hint (normalise, subtract the maximum,
/// mask before the softmax...) would claim what the answers contradict.
Hint precision_hint(const std::string& precision);

/// "hint: <headline>. <advice> (<cites>)" as one paragraph, lines
/// wrapped at about `width` columns, each prefixed with `indent`.
std::string format_hint(const Hint& h, const std::string& indent = "  ", std::size_t width = 96);

}  // namespace attn::grader

#pragma once
// Feedback that teaches: from a failing verdict to the misconception it most
// likely shows, and a short hint citing the statement of the text to reread.
//
// First the failure's shape is examined (the counterexample and what the
// submission answered): the weights are compared with what each known
// misconception would give on the same inputs (the softmax before the mask,
// no or a doubled 1/sqrt(d_k), the wrong axis, an inverted mask, 0 instead
// of -inf...), and NaN at large logits is traced to a missing max shift; a
// tiled answer (O, logsumexp) is compared with each flawed tiled kernel's.
// Failing that, the property's own hint (the table in feedback.cpp) is used.

#include <optional>
#include <string>

#include "attn/prop/verdict.hpp"

namespace attn::grader {

struct Hint {
  std::string key;            ///< stable id of the misconception ("mask_after_softmax")
  std::string misconception;  ///< what the code most likely does ("the mask is applied after the softmax")
  std::string advice;         ///< what to reread and do, one or two sentences
  std::string cites;          ///< "Lemma 2, section 32.2.4; F4"
  bool from_shape = false;    ///< recognised from the failure's shape (not the property's generic hint)
};

/// The hint for a verdict that failed (nullopt for a pass or a skip).
std::optional<Hint> diagnose(const attn::prop::Verdict& v);

/// "hint: <misconception>. <advice> (<cites>)" as one paragraph, lines
/// wrapped at about `width` columns, each prefixed with `indent`.
std::string format_hint(const Hint& h, const std::string& indent = "  ", std::size_t width = 96);

}  // namespace attn::grader

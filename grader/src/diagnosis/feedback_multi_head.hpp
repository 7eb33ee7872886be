#pragma once
// The feedback map's detectors for multi-head attention (M1, section 32.2.5),
// private to feedback.cpp.

#include <optional>
#include <string>

#include "diagnosis/feedback.hpp"
#include "attn/prop/case.hpp"
#include "attn/prop/outcome.hpp"

namespace attn::grader {

/// The hint for an answer `o` (a result, not a refusal or a fault) that
/// failed property `property_id` on the multi-head case `c`: the answer is
/// compared with what each known misconception computes on the same inputs
/// (heads concatenated in another order, one W_O block for every head, the
/// logits scaled by sqrt(d_model), the mask not passed to the heads, no
/// scale). Without a match, the multi-head form of the property's own hint.
std::optional<Hint> multi_head_hint(const std::string& property_id, const attn::prop::Case& c,
                                    const attn::prop::Outcome& o);

}  // namespace attn::grader

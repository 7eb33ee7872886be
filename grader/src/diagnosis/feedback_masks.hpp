#pragma once
// The feedback map's detectors for building masks (C1, section 32.2.4),
// private to feedback.cpp.

#include <optional>
#include <string>

#include "diagnosis/feedback.hpp"
#include "attn/prop/case.hpp"
#include "attn/prop/outcome.hpp"

namespace attn::grader {

/// The hint for a built mask `o.mask` (a result) that failed property
/// `property_id` on the causal_mask or padding_mask case `c`: the answer is
/// compared with what each known mistake builds for the same sizes (the
/// polarity inverted, the diagonal forbidden, the other causal alignment,
/// the causal triangle reversed, the padding off by one or applied to the
/// queries). Without a match, the property's own hint.
std::optional<Hint> mask_hint(const std::string& property_id, const attn::prop::Case& c,
                              const attn::prop::Outcome& o);

}  // namespace attn::grader

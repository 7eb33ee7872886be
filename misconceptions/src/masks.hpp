#pragma once
// Models of the mask builders (C1, section 32.2.4), private.

#include "attn/mis/model.hpp"

namespace attn::mis::detail {

/// How a (possibly mistaken) builder decides that key j is forbidden for query i.
struct MaskRule {
  enum class Causal { definition, always_top_left, always_bottom_right, diagonal_forbidden,
                      triangle_reversed, inverted } causal = Causal::definition;
  enum class Padding { definition, off_by_one_late, off_by_one_early, on_queries,
                       inverted } padding = Padding::definition;
};

/// The mask the rule builds for c (causal_mask or padding_mask), as an answer.
/// Throws std::invalid_argument for another operation.
Prediction predict_mask(const Case& c, const MaskRule& rule);

}  // namespace attn::mis::detail

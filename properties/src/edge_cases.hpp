#pragma once
// The fixed edge cases a property runs on every seed (like Hypothesis's
// explicit examples), so the regimes real bugs need are reached, not by
// luck (private to properties/src; runner.cpp). They run once the random
// cases pass: a random failure keeps its shrunk counterexample, and the edge
// cases, already small, decide only what the random ones missed.

#include <vector>

#include "attn/prop/property.hpp"

namespace attn::prop::detail {

/// The edge cases property `p` asks for (Property::edge_cases) on a subject
/// of precision `gc.precision` (values exact in that type), each tagged
/// "edge: ...":
///  - lowest_logits: logits stepping down to the type's lowest finite value
///    (-2e4, -2e9, -2e20 and -3e38 rounded to the type, then the lowest): the
///    allowed logits of a row all at that level beside a forbidden key, so a
///    finite sentinel for -inf (-1e4, -1e9, -1e20, float's lowest...) or a
///    finite floor for the running maximum gets weight or underflows to 0/0,
///    and a forbidden logit of 0 wins a maximum taken over every key; and for
///    softmax_rows and masked_softmax, -inf in S at forbidden positions, the
///    text's F2 matrix (reference/include/attn/ref/textbook.hpp);
///  - non_finite: a NaN and an Inf input: the answer must refuse or carry the
///    bad value into what it returns (a finite answer swallowed it;
///    check_util.hpp, check_non_finite_answer);
///  - long_rows: two long rows (when the ShapeSpace reaches kLongRowsFrom):
///    nearly uniform weights over up to 2000 keys, and logits rising along the
///    keys, where sums kept in a narrow type and an online softmax that
///    forgets to rescale go far off.
///  - long_rows for attention_backward (backward_oracle_agreement and
///    backward_ds_rows_sum_to_zero ask for it): 70 queries over 300 keys,
///    causal bottom-right, and 3 queries over 200 keys, head dims 4, weights
///    spread over every tile of 32 to 128 keys, so a D_i or logsumexp kept
///    per tile fails at every seed (within the ShapeSpace; none below
///    kBackwardLongFrom keys).
/// Only the properties that accept any valid case of their operation ask for
/// them (oracle_agreement, exact_zeros, row_stochastic, and score_shape, which
/// charges a refusal of any of them: detail::answering_owner), and only the
/// operations softmax_rows, masked_softmax, attention and attention_backward
/// have them; empty otherwise.
std::vector<Case> edge_cases(const Property& p, const GenConfig& gc);

}  // namespace attn::prop::detail

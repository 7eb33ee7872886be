#pragma once
// The visible examples of the softmax exercises: fixed cases from the text's
// own numbers, checked at the text's absolute tolerance 1e-4 against the
// printed weights (attn::ref::textbook). Property id "textbook_example", as
// for F3's two-token example (attn::prop::textbook_example).

#include "attn/prop/property.hpp"

namespace attn::grader {

/// F1: the logits of the two-token example, S = (1/sqrt 2) [[1, 2], [1, 0]]
/// (section 32.2.6), whose softmax the text prints as
/// [[0.3302, 0.6698], [0.6698, 0.3302]].
attn::prop::Property f1_visible_example();

/// F2: S = [[0, 2, -inf], [1, -1, 0]] (section 32.2.8), whose masked softmax
/// the text prints as [[0.1192, 0.8808, 0], [0.6652, 0.0900, 0.2447]]
/// (solution 32.2.9); sent twice: with the -inf in S and no mask, and with a
/// finite logit (3) there that the mask forbids.
attn::prop::Property f2_visible_example();

}  // namespace attn::grader

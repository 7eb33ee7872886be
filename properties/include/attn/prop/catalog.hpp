#pragma once
// The property list. One factory per property; each lives in its own file
// under properties/src/ named after the property.

#include <vector>

#include "attn/prop/property.hpp"

namespace attn::prop {

// Lemma 1 (32.2.3): O is T_q x d_v and A is T_q x T_v; S entries match the oracle.
Property score_shape();
// Lemma 1: a d_k mismatch between Q and K is refused.
Property dk_mismatch_refused();
// F1 (32.2.8-9): A >= 0 and every row of A sums to 1 within the error bound.
Property row_stochastic(Operation op = Operation::attention);
// Lemma 2 (32.2.4): A_ij == 0.0 bit-exactly wherever mask(i, j) is true.
Property exact_zeros(Operation op = Operation::attention);
// Lemma 2 hypothesis / 32.2.4: a query row with every key forbidden is refused.
Property fully_forbidden_refused(Operation op = Operation::attention);
// Definition (32.2.2): O and A agree with the high-precision oracle within the bound.
Property oracle_agreement(Operation op = Operation::attention);
// 32.2.6 / 32.2.7: the text's two-token example, with and without the causal
// mask, at the text's absolute tolerance 1e-4 (a fixed case, not generated).
Property textbook_example();

/// The properties that grade exercise F3 (attention with an optional mask),
/// in report order.
std::vector<Property> attention_properties();

}  // namespace attn::prop

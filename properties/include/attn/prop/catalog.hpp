#pragma once
// The property list. One factory per property; each lives in its own file
// under properties/src/ named after the property.

#include <string>
#include <vector>

#include "attn/prop/fully_forbidden.hpp"
#include "attn/prop/property.hpp"

namespace attn::prop {

// Lemma 1 (32.2.3): O is T_q x d_v and A is T_q x T_v; S entries match the oracle.
Property score_shape();
// Lemma 1: a d_k mismatch between Q and K is refused.
Property dk_mismatch_refused(std::string expected_error = "");
// F1 (32.2.8-9): A >= 0 and every row of A sums to 1 within the error bound.
Property row_stochastic(Operation op = Operation::attention);
// Lemma 2 (32.2.4): A_ij == 0.0 bit-exactly wherever mask(i, j) is true.
Property exact_zeros(Operation op = Operation::attention);
// Lemma 2 hypothesis / 32.2.4: a query row with every key forbidden is
// refused (with `expected_error` when not empty), the valid twin answered.
Property fully_forbidden_refused(Operation op = Operation::attention,
                                 std::string expected_error = "");
// A query row with every key forbidden under a kernel's `convention`: error,
// fully_forbidden_refused(op, expected_error); nan or zeros, the row's
// outputs (and weights, when returned) all NaN, or all exactly 0.0, and the
// other rows still agreeing with the oracle within the bound (id
// "fully_forbidden_nan" or "fully_forbidden_zeros").
Property fully_forbidden_row(Operation op, FullyForbidden convention,
                             std::string expected_error = "");
// An expected_error names the error type a refusal must have ("ShapeError");
// empty accepts any refusal (students raise whatever their language offers).

// Shift invariance (32.2.4): row shifts of S (softmax ops) or one vector added
// to every key (attention ops) leave A and O unchanged.
Property shift_invariance(Operation op = Operation::attention);
// 32.2.5: permuting Q's rows permutes O's; permuting K, V and mask columns leaves O.
Property permutation_equivariance(Operation op = Operation::attention);
// Lemma 2: masked attention equals attention over the allowed keys only.
Property masked_equals_deleted(Operation op = Operation::attention);
// 14.3 / 32.2.2: zero Q or constant Q = K gives uniform weights, O = mean of allowed V.
Property uniform_when_tied(Operation op = Operation::attention);
// 14.3: attention(Q sqrt(d_k), K, V) equals the unscaled softmax(Q K^T) V.
Property scale_off(Operation op = Operation::attention);
// docs/ARCHITECTURE.md (lib/ contract): NaN/Inf inputs are refused.
Property non_finite_refused(Operation op = Operation::attention, std::string expected_error = "");
// Lemma 1 / docs/ARCHITECTURE.md (lib/ contract): T_v mismatch between K and V, or a mask of the wrong shape, is refused.
Property shape_mismatch_refused(Operation op = Operation::attention, std::string expected_error = "");

// FlashAttention Theorem 1 / 32.2.4: tiled O equals naive O for every tile size.
Property tiled_equals_naive();

// Definition (32.2.2): O and A agree with the high-precision oracle within the bound.
Property oracle_agreement(Operation op = Operation::attention);
// 32.2.6 / 32.2.7: the text's two-token example, with and without the causal
// mask, at the text's absolute tolerance 1e-4 (a fixed case, not generated);
// `within_bound` (a kernel's check): against the oracle within the error
// bound of the subject's declared precision instead.
Property textbook_example(bool within_bound = false);

// Section 32.2.5: with W_O = I, column block i of multi-head O is head i's output.
Property heads_in_order();

// batched_attention (batched.hpp), each head held to the oracle within the
// per-head bound: Ainslie et al. 2023 (GQA), section 2: query head h attends
// with kv head h / (H / H_kv) (cases with 2 <= H_kv < H).
Property kv_heads_grouped();
// Section 32.2.4 with T_q != T_v: the causal mask in the alignment asked for
// (top_left or bottom_right; bottom-right only with T_q < T_v here).
Property causal_alignment();
// Lemma 1's 1/sqrt(d_k) replaced by an explicit scale (never 1/sqrt(d_k)).
Property scale_honoured();
// Section 32.2.4: a 2-D or 4-D mask broadcast over (N, H, T_q, T_v) as NumPy does.
Property mask_broadcast();
// Lemma 1: shapes that do not fit (H_kv not dividing H, d_k, a mask that
// does not broadcast, N, T_v) are refused, and the same inputs made to fit
// are answered.
Property shapes_refused(std::string expected_error = "");

// The backward pass (Operation::attention_backward; reference/TOLERANCE.md,
// "The backward pass"). Definition (Dao et al. 2022, Appendix B.2): dQ, dK,
// dV agree with the 50-digit oracle within the bound.
Property backward_oracle_agreement();
// Lemma 2 differentiated: a key forbidden to every query gets dK, dV rows of exactly 0.
Property backward_exact_zeros();
// Shift invariance (32.2.4) differentiated: each row of dS sums to 0, seen
// as sum_j dK_j = 0 within the bound (TOLERANCE.md, (B7)).
Property backward_ds_rows_sum_to_zero();
// 32.2.5 differentiated: permuting queries permutes dQ; permuting keys permutes dK, dV.
Property backward_permutation_equivariance();
// FlashAttention-2, Algorithm 2: the tiled backward (a case with tiles)
// equals the naive one (tiles 0) for every tile size (the library's).
Property backward_tiled_equals_naive();
// The gradient's definition: a central difference of the 50-digit forward
// along a direction agrees with <dX, E> (TOLERANCE.md, (B8)).
Property backward_finite_difference();
// Lemma 2 / 32.2.4: a fully forbidden row is refused (`expected_error`, any
// when empty), or under `convention` nan or zeros has its documented
// gradient (id "backward_fully_forbidden_nan" / "_zeros").
Property backward_fully_forbidden(std::string expected_error = "",
                                  FullyForbidden convention = FullyForbidden::error);
/// The properties of a backward kernel (attnlab check --op
/// attention_backward), in report order: oracle agreement, exact zeros,
/// dS's row sums, permutation equivariance, the central difference, the
/// fully forbidden row under `fully_forbidden`.
std::vector<Property> backward_properties(FullyForbidden fully_forbidden = FullyForbidden::error);

// Section 32.2.4: a built causal (top-left or bottom-right) or padding mask
// equals its definition entry by entry.
Property causal_mask_matches_definition();
Property padding_mask_matches_definition();
/// The definition of the mask a causal_mask or padding_mask case asks for.
Mask mask_definition(const Case& c);

/// The properties of multi-head self-attention (section 32.2.5), in report
/// order: oracle agreement, the heads' order, a fully forbidden row refused
/// (any error type unless `expected_error` names one).
std::vector<Property> multi_head_properties(std::string expected_error = "");

/// The properties that grade exercise F3 (attention with an optional mask),
/// in report order.
std::vector<Property> attention_properties();

// Sections 32.2.6 and 32.2.8: the text's worked numbers for a softmax
// operation, at its tolerance 1e-4 against the printed weights (id
// "textbook_example", as for attention): softmax_rows (F1), the two-token
// example's logits S = (1/sqrt 2) [[1, 2], [1, 0]] and the printed
// [[0.3302, 0.6698], [0.6698, 0.3302]]; masked_softmax (F2), S = [[0, 2,
// -inf], [1, -1, 0]] and solution 32.2.9's weights, sent with the -inf in S
// and with a finite logit there that the mask forbids. Throws
// std::invalid_argument for another operation.
Property softmax_textbook_example(Operation op);

/// The properties that grade an exercise over `op` (an exercise's spec
/// names its operation: exercises/registry.json), in report order: the
/// operation's row of kOperationLists (properties/src/catalog.cpp; F1 and
/// F2's with the text's worked example first, attention_properties(), T1's,
/// multi_head_properties(), the masks', backward_properties()). Throws
/// std::invalid_argument for an operation whose row has no exercise's list
/// (batched_attention, padding_mask).
std::vector<Property> graded_properties_for(Operation op);

/// For someone else's attention kernel in CI: the attention properties plus
/// the metamorphic ones; refusals of any error type; a fully forbidden row
/// held to `fully_forbidden` (the kernel's documented convention); the
/// text's worked examples within the error bound (textbook_example(true)).
std::vector<Property> kernel_properties(FullyForbidden fully_forbidden = FullyForbidden::error);

/// The kernel properties for any operation `attnlab check` takes, its row
/// of kOperationLists (properties/src/catalog.cpp; attention:
/// kernel_properties(); masked_softmax and softmax_rows: those of F2 and F1
/// with the metamorphic ones; attention_tiled: T1's; multi_head_attention:
/// M1's; attention_backward: backward_properties(); batched_attention:
/// oracle agreement per (n, h), kv_heads_grouped, causal_alignment,
/// scale_honoured, mask_broadcast, the fully forbidden row, shapes_refused).
/// Throws std::invalid_argument for an operation whose row has no kernel
/// list (those that build a mask).
std::vector<Property> kernel_properties_for(Operation op,
                                            FullyForbidden fully_forbidden = FullyForbidden::error);

/// The whole list for the library's attention (and any strict kernel): the
/// attention properties, the metamorphic ones, and typed refusals
/// (ShapeError, FullyMaskedRowError, NonFiniteInputError). For
/// attention_backward: backward_properties() with the typed refusal
/// (FullyMaskedRowError) and backward_tiled_equals_naive.
std::vector<Property> library_properties(Operation op = Operation::attention);

/// Every property the catalogue builds, for every operation and fully
/// forbidden convention it is built for (so one id may appear several
/// times), row by row of kOperationLists: the library's list where the row
/// says the library has one, the kernel list under each convention, the
/// exercise's (graded_properties_for).
/// For checks over the whole catalogue: each property has a title, a source
/// and a hint, and a refusal property is of kind refusal.
std::vector<Property> catalogue_properties();

}  // namespace attn::prop

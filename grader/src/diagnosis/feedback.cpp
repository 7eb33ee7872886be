// Feedback that states facts: what a failing property asks for, and what
// the failure's outcome shows for certain (a timeout, an answer of the wrong
// shape, a refusal of a valid input, a skeleton not implemented yet). Which
// misconception the answers show is the diagnosis stage's to say
// (diagnosis_stage.hpp): one shrunk counterexample fits many mistakes.
#include "diagnosis/feedback.hpp"
#include "diagnosis/diagnosis_text.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <utility>


namespace attn::grader {
namespace {

using attn::Index;
using attn::prop::Case;
using attn::prop::DMatrix;
using attn::prop::Outcome;
using attn::prop::Verdict;

Hint hint(std::string key, std::string headline, std::string advice, std::string cites,
          bool from_shape = true) {
  return Hint{std::move(key), std::move(headline), std::move(advice), std::move(cites),
              from_shape};
}

// ---------------------------------------------------------------- the table
// One entry per property: the misconception a failure of it most often shows
// when its shape says nothing more precise.
const std::map<std::string, Hint>& property_hints() {
  static const std::map<std::string, Hint> table = {
      {"textbook_example",
       hint("textbook_example", "the text's worked example comes out differently",
            "Redo the two-token example by hand: S = Q K^T / sqrt(2), the softmax of each row, "
            "then O = A V; with the causal mask, key 1 is forbidden for query 0 before the "
            "softmax, so A(0,0) = 1.",
            "section 32.2.6, solution 32.2.7", false)},
      {"score_shape",
       hint("score_shape", "the results have the wrong shape",
            "O must be T_q x d_v and A must be T_q x T_v: the scores are Q K^T (queries in "
            "rows, keys in columns), scaled by 1/sqrt(d_k), and O = A V. Test with T_q != T_v "
            "and d_k != d_v, where a transposed product cannot hide.",
            "Lemma 1, section 32.2.3", false)},
      {"dk_mismatch_refused",
       hint("dk_mismatch_refused", "Q and K with different d_k are not refused",
            "Q K^T is defined only when Q and K have the same number of columns d_k; check it "
            "and raise an error instead of letting broadcasting or a partial product run.",
            "Lemma 1, section 32.2.3", false)},
      {"row_stochastic",
       hint("row_stochastic", "a row of A is not a probability distribution",
            "Every row of A is a softmax over the allowed keys: non-negative and summing to 1. "
            "Normalise each row (over the keys, the last axis) after setting forbidden logits "
            "to -inf.",
            "F1, sections 32.2.8-32.2.9; Lemma 2", false)},
      {"exact_zeros",
       hint("exact_zeros", "forbidden weights are small but not exactly 0",
            "Set forbidden logits to -inf before the softmax: exp(-inf) is exactly 0.0, "
            "bit for bit. A large finite negative (-1e9), an epsilon, or multiplying by the "
            "mask after the softmax does not give exact zeros in every case.",
            "Lemma 2, section 32.2.4", false)},
      {"fully_forbidden_refused",
       hint("fully_forbidden_refused", "a query row with every key forbidden is not refused",
            "Lemma 2 needs at least one allowed key per row; for a row with none, the softmax is "
            "undefined (0/0). Check for such rows and raise an error: NaN, zeros or a uniform "
            "average are all silent wrong answers.",
            "Lemma 2, section 32.2.4", false)},
      {"oracle_agreement",
       hint("oracle_agreement", "the values differ from the definition beyond rounding",
            "Compare with the definition step by step on the counterexample: S = Q K^T / "
            "sqrt(d_k), forbidden logits -inf, softmax of each row with the row maximum "
            "subtracted, O = A V, all in float64. The worst entry shows where it goes wrong.",
            "definition, section 32.2.2; reference/TOLERANCE.md", false)},
      {"shift_invariance",
       hint("shift_invariance", "adding a constant to a row of logits changes the result",
            "softmax(s + c) = softmax(s) for any constant c: adding c to every allowed logit of a "
            "row must leave its weights unchanged. Subtract the maximum over the allowed keys of "
            "each row, and keep every logit as it is (no clipping, no finite floor).",
            "shift invariance, section 32.2.4", false)},
      {"permutation_equivariance",
       hint("permutation_equivariance", "reordering queries or keys changes the answer",
            "Attention has no notion of position: permuting the rows of Q permutes the rows of "
            "O, and permuting K, V and the mask's columns together leaves O unchanged. Look for "
            "an index that mixes rows and columns, or a mask applied by position.",
            "section 32.2.5", false)},
      {"masked_equals_deleted",
       hint("masked_equals_deleted", "masking a key is not the same as deleting it",
            "With -inf before the softmax, a forbidden key contributes exactly nothing: the "
            "result must equal attention over the allowed keys only.",
            "Lemma 2, section 32.2.4", false)},
      {"uniform_when_tied",
       hint("uniform_when_tied", "equal logits do not give uniform weights",
            "When all allowed logits of a row are equal, every allowed key gets the same weight "
            "and O is the mean of the allowed V rows.",
            "sections 14.3 and 32.2.2", false)},
      {"scale_off",
       hint("scale_off", "the 1/sqrt(d_k) scale is not applied exactly once",
            "The scores are Q K^T divided by sqrt(d_k), once.", "Lemma 1, section 32.2.3", false)},
      {"non_finite_refused",
       hint("non_finite_refused", "NaN or Inf inputs are not refused",
            "Check Q, K and V (or S) for NaN and Inf and raise an error naming the matrix and "
            "the entry.",
            "docs/ARCHITECTURE.md, lib/ contract", false)},
      {"shape_mismatch_refused",
       hint("shape_mismatch_refused", "inputs of inconsistent shapes are not refused",
            "K and V need the same number of rows T_v, and the mask must be T_q x T_v; check "
            "and raise an error.",
            "Lemma 1, section 32.2.3", false)},
      {"tiled_equals_naive",
       hint("tiled_equals_naive", "the tiled result differs from the naive one",
            "The online softmax must rescale the running sum and output whenever the running "
            "maximum grows, and a tile whose keys are all forbidden must leave them unchanged.",
            "section 32.2.4; FlashAttention, Theorem 1", false)},
      {"fully_forbidden_nan",
       hint("fully_forbidden_nan", "a query row with every key forbidden does not come out NaN",
            "The kernel was checked with --fully-forbidden nan: such a row must be NaN in A and "
            "O (the 0/0 of a softmax over no key), not refused, not zeros, not a uniform row.",
            "Lemma 2, section 32.2.4; the kernel's documented convention", false)},
      {"fully_forbidden_zeros",
       hint("fully_forbidden_zeros", "a query row with every key forbidden does not come out as zeros",
            "The kernel was checked with --fully-forbidden zeros: such a row must be 0 in A and O, "
            "not refused, not NaN, not a uniform row.",
            "Lemma 2, section 32.2.4; the kernel's documented convention", false)},
      {"backward_oracle_agreement",
       hint("backward_oracle_agreement", "the gradients differ from the definition beyond rounding",
            "Recompute P from the logits (the forward's mask, -inf before the softmax), then "
            "dV = P^T dO, dP = dO V^T, D = rowsum(dO o O), dS = P o (dP - D), dQ = scale dS K "
            "and dK = scale dS^T Q; the worst entry shows which gradient departs.",
            "the chain rule through O = P V and the softmax; FlashAttention-2, Algorithm 2", false)},
      {"backward_exact_zeros",
       hint("backward_exact_zeros", "a key no query may attend to gets a gradient",
            "A forbidden weight is exactly 0, so its dS entry P o (dP - D) is exactly 0: a key "
            "forbidden to every query must get dK and dV rows of exactly 0. Mask the recomputed "
            "logits with -inf, as the forward does, not a finite fill.",
            "Lemma 2, section 32.2.4, differentiated", false)},
      {"backward_ds_rows_sum_to_zero",
       hint("backward_ds_rows_sum_to_zero", "the keys' gradients do not sum to zero",
            "The softmax does not change when a constant is added to a row of logits, so each "
            "row of dS sums to 0 and so do the rows of dK: the D = rowsum(dO o O) term must be "
            "subtracted from dP in every row.",
            "shift invariance, section 32.2.4, differentiated", false)},
      {"backward_finite_difference",
       hint("backward_finite_difference", "a gradient is not the derivative of the loss",
            "Along a direction E of Q, K or V, <dX, E> must equal the rate of change of "
            "sum(dO o O): a gradient off by a factor (the scale missed or applied twice), "
            "transposed, or for another loss fails here.",
            "the gradient's definition", false)},
      {"backward_permutation_equivariance",
       hint("backward_permutation_equivariance", "reordering queries or keys changes the gradients",
            "Permuting the rows of Q and dO permutes dQ's rows; permuting K, V and the mask's "
            "columns permutes dK's and dV's rows. Look for an index that mixes rows and columns.",
            "permutation equivariance, section 32.2.5, differentiated", false)},
      {"backward_fully_forbidden_refused",
       hint("backward_fully_forbidden_refused",
            "a query row with every key forbidden is not refused by the backward pass",
            "The softmax of such a row is undefined, and so are its gradients: raise an error "
            "as the forward does.",
            "Lemma 2, section 32.2.4", false)},
      {"backward_fully_forbidden_nan",
       hint("backward_fully_forbidden_nan",
            "a query row with every key forbidden does not get the NaN gradient of its convention",
            "Checked with --fully-forbidden nan: that row's dQ is NaN (its NaN weights reach dK "
            "and dV through P^T dO, which are not judged there).",
            "Lemma 2, section 32.2.4; the kernel's documented convention", false)},
      {"backward_fully_forbidden_zeros",
       hint("backward_fully_forbidden_zeros",
            "a query row with every key forbidden does not get the zero gradient of its convention",
            "Checked with --fully-forbidden zeros: that row's dQ is 0, and it adds nothing to dK "
            "and dV.",
            "Lemma 2, section 32.2.4; the kernel's documented convention", false)},
      {"kv_heads_grouped",
       hint("kv_heads_grouped", "query heads do not use their group's key and value head",
            "With H query heads and H_kv key/value heads, query head h uses kv head "
            "h / (H / H_kv): consecutive query heads share one (repeat_interleave, not tile).",
            "Ainslie et al. 2023 (GQA), section 2", false)},
      {"causal_alignment",
       hint("causal_alignment", "the causal mask is not aligned as asked",
            "With T_q != T_v, top_left forbids keys j > i and bottom_right forbids j > i + T_v - "
            "T_q (the last query sees every key); use the alignment the call asks for.",
            "section 32.2.4; FlashAttention 2.1 (bottom-right alignment)", false)},
      {"mask_broadcast",
       hint("mask_broadcast", "the mask is not broadcast over batch and heads",
            "A mask of shape (T_q, T_v), or 4-D with each dimension equal to (N, H, T_q, T_v) or "
            "1, applies to every (n, h) it broadcasts to, as NumPy's broadcasting does.",
            "section 32.2.4; NumPy broadcasting rules", false)},
      {"scale_honoured",
       hint("scale_honoured", "an explicit scale is not used",
            "When a scale is given, the logits are scale Q K^T, in place of the default "
            "1/sqrt(d_k), not as well as it.",
            "Lemma 1, section 32.2.3; PyTorch scaled_dot_product_attention(scale=)", false)},
      {"shapes_refused",
       hint("shapes_refused", "shapes that do not fit are not refused",
            "Check that H_kv divides H, that Q and K share d_k, that K and V share T_v and N, and "
            "that the mask broadcasts; raise an error naming the mismatch.",
            "Lemma 1, section 32.2.3; Ainslie et al. 2023 (GQA)", false)},
      {"heads_in_order",
       hint("heads_in_order", "the heads are not concatenated in order",
            "With W_O = I the answer is the concatenation [O_1, ..., O_h] itself: head i's "
            "output, attention(X W_Q^i, X W_K^i, X W_V^i, mask), fills columns i d_v to "
            "(i+1) d_v - 1.",
            "section 32.2.5", false)},
      {"causal_mask_matches_definition",
       hint("causal_mask_matches_definition", "the causal mask differs from its definition",
            "Key j is forbidden for query i when j > i (top-left) or j > i + (T_v - T_q) "
            "(bottom-right); every other entry is allowed, and true means forbidden.",
            "section 32.2.4", false)},
      {"padding_mask_matches_definition",
       hint("padding_mask_matches_definition", "the padding mask differs from its definition",
            "Keys j >= key_length are padding: forbidden (true) for every query; the first "
            "key_length keys are allowed.",
            "section 32.2.4", false)},
      {"answers",
       hint("answers", "a number in the answers file is not the text's",
            "Recompute it from the statement; the report shows the expected value and the "
            "tolerance.",
            "section 32.2.8", false)},
  };
  return table;
}

// ------------------------------------------------- facts read from the outcome

/// T_q and T_v of the case as the submission sees them.
std::pair<Index, Index> query_key_counts(const Case& c) {
  if (c.op == attn::prop::Operation::multi_head_attention) return {c.X.rows(), c.X.rows()};
  if (c.op == attn::prop::Operation::batched_attention) return {c.batched.Q[2], c.batched.K[2]};
  if (attn::prop::takes_qkv(c.op)) return {c.Q.rows(), c.K.rows()};
  return {c.S.rows(), c.S.cols()};
}

/// The visible example's hint for the exercise of the case's operation: F1
/// and F2 print their own logits (the table's entry is F3's and F4's).
std::optional<Hint> textbook_hint(const Case& c) {
  if (c.op == attn::prop::Operation::softmax_rows)
    return hint("textbook_example", "the text's worked example comes out differently",
                "Redo it by hand: the logits S = (1/sqrt 2) [[1, 2], [1, 0]] of the two-token "
                "example give A = [[0.3302, 0.6698], [0.6698, 0.3302]]: exp of each entry minus "
                "its row maximum, divided by the row's sum.",
                "section 32.2.6; exercise F1, 32.2.8", false);
  if (c.op == attn::prop::Operation::masked_softmax)
    return hint("textbook_example", "the text's worked example comes out differently",
                "Redo task 2 of F2 by hand: S = [[0, 2, -inf], [1, -1, 0]] gives A = [[0.1192, "
                "0.8808, 0], [0.6652, 0.0900, 0.2447]], the softmax of each row over its allowed "
                "keys; with S[0, 2] = 3 forbidden by the mask instead, A must be the same.",
                "section 32.2.8 (F2), solution 32.2.9", false);
  return std::nullopt;
}

/// oracle_agreement for the softmax exercises (F1, F2): S is given, there
/// is no Q K^T to scale and no O (the table's entry is the attention one).
std::optional<Hint> logits_oracle_hint(const Case& c) {
  if (c.op != attn::prop::Operation::softmax_rows && c.op != attn::prop::Operation::masked_softmax)
    return std::nullopt;
  return hint("oracle_agreement", "the values differ from the definition beyond rounding",
              "Compare with the definition step by step on the counterexample: the forbidden "
              "keys (mask true or S_ij = -inf) get weight 0, each row's maximum is taken over its "
              "allowed keys and subtracted, exp, then divide by the row's sum, all in float64. "
              "The worst entry shows where it goes wrong.",
              "definition, section 32.2.2; reference/TOLERANCE.md", false);
}

/// What the answer puts at the forbidden keys, for exact_zeros: NaN, or a
/// weight that is not small (the mask did not reach the logit as -inf), says
/// more than "small but not exactly 0", which is true only of tiny weights.
std::optional<Hint> forbidden_weights_hint(const Case& c, const Outcome& o) {
  if (o.kind != Outcome::Kind::result || o.A.size() == 0) return std::nullopt;
  const auto [T_q, T_v] = query_key_counts(c);
  if (o.A.rows() != T_q || o.A.cols() != T_v) return std::nullopt;
  const bool logits_op = c.op == attn::prop::Operation::softmax_rows ||
                         c.op == attn::prop::Operation::masked_softmax;
  bool nan = false;
  double largest = 0;
  for (Index i = 0; i < T_q; ++i)
    for (Index j = 0; j < T_v; ++j) {
      const bool by_mask = c.mask && i < c.mask->rows() && j < c.mask->cols() && (*c.mask)(i, j);
      const bool by_logit = logits_op && c.S(i, j) == -std::numeric_limits<double>::infinity();
      if (!by_mask && !by_logit) continue;
      const double x = o.A(i, j);
      if (std::isnan(x)) nan = true;
      else largest = std::max(largest, std::abs(x));
    }
  if (nan)
    return hint("forbidden_weights_nan", "forbidden weights come out NaN, not 0",
                "The rows holding them are NaN: somewhere on the way a 0 * (-inf), a -inf - "
                "(-inf) or a 0/0 happens. Set forbidden logits to -inf before the softmax "
                "(np.where(mask, -np.inf, S), not mask * -inf), subtract the maximum over the "
                "allowed keys, and refuse a row with no allowed key.",
                "Lemma 2, section 32.2.4", false);
  if (largest > 1e-3) {
    std::ostringstream w;
    w.precision(3);
    w << largest;
    return hint("forbidden_weight_large", "a forbidden key gets a real weight",
                "A forbidden key has weight " + w.str() + ", not 0: its logit did not become "
                "-inf before the softmax (the mask is not applied to it, applied to other keys, "
                "or replaced by a finite value that the allowed logits fall below). Set S_ij = "
                "-inf exactly where mask(i, j) is true, before the softmax.",
                "Lemma 2, section 32.2.4", false);
  }
  return std::nullopt;
}

// ------------------------------------ a generic hint the counterexample contradicts
// A property's table hint names the one cause its failures most often have.
// Where the counterexample itself rules that cause out, the hint would claim
// what the evidence contradicts: the report then says that no cause is named
// and why, and points at the departure it shows.

/// Whether every allowed logit of each row of Q K^T is the same (Q = 0, or
/// K's rows equal): any scale gives the same weights, so the scale cannot be
/// what departs.
bool scale_has_no_effect(const Case& c) {
  if (!attn::prop::takes_qkv(c.op) || c.Q.size() == 0 || c.K.size() == 0) return false;
  if (c.Q.cols() != c.K.cols()) return false;
  const DMatrix S = c.Q * c.K.transpose();
  for (Index i = 0; i < S.rows(); ++i) {
    std::optional<double> first;
    for (Index j = 0; j < S.cols(); ++j) {
      if (c.mask && i < c.mask->rows() && j < c.mask->cols() && (*c.mask)(i, j)) continue;
      if (!first) first = S(i, j);
      else if (S(i, j) != *first) return false;
    }
  }
  return true;
}

/// Why the property's own hint cannot be the cause on this counterexample,
/// or nullopt when nothing rules it out.
std::optional<std::string> hint_ruled_out(const std::string& property, const Case& c) {
  if (property == "heads_in_order" && c.op == attn::prop::Operation::multi_head_attention &&
      c.heads.size() < 2)
    return "the counterexample has one head, so the heads' order cannot be what departs";
  if (property == "tiled_equals_naive" && c.op == attn::prop::Operation::attention_tiled &&
      c.tile_k > 0 && c.K.rows() <= c.tile_k)
    return "the counterexample's keys fit in one tile (T_v = " + std::to_string(c.K.rows()) +
           ", tile " + std::to_string(c.tile_k) +
           "), so no running sum is rescaled and no tile is skipped";
  if (property == "scale_off" && scale_has_no_effect(c))
    return "every allowed logit of each row of Q K^T is the same on the counterexample, so the "
           "weights do not depend on the scale";
  return std::nullopt;
}

Hint ruled_out_hint(const std::string& property, const std::string& why) {
  return hint("no_cause_named", "no cause is named for this failure",
              "The usual cause of a " + property + " failure is ruled out: " + why +
                  ". The worst entry above shows where the answer departs from the "
                  "definition; run your function on the counterexample and compare each step "
                  "with the definition.",
              "", false);
}

std::optional<Hint> from_outcome(const Verdict& v) {
  const auto& f = *v.failure;
  if (!f.outcome || !v.counterexample) return std::nullopt;
  const Outcome& o = *f.outcome;
  // The case the answer is to (a metamorphic property's related case), else the counterexample.
  const Case& c = f.answered ? *f.answered : *v.counterexample;
  if (v.property_id == "exact_zeros")
    if (auto h = forbidden_weights_hint(c, o)) return h;

  const bool refusal_property = v.property_id == "fully_forbidden_refused" ||
                                v.property_id == "dk_mismatch_refused" ||
                                v.property_id == "non_finite_refused" ||
                                v.property_id == "shape_mismatch_refused" ||
                                v.property_id == "shapes_refused";
  if (o.kind == Outcome::Kind::result && !attn::prop::builds_mask(c.op)) {
    // A wrong shape is an answer (score_shape charges it): a transposed A said as such.
    const auto [T_q, T_v] = query_key_counts(c);
    if (o.A.size() > 0 && o.A.rows() == T_v && o.A.cols() == T_q && T_q != T_v) {
      return hint("weights_shape", "A came back T_v x T_q, keys by queries",
                  "A came back " + std::to_string(o.A.rows()) + " x " + std::to_string(o.A.cols()) +
                      "; it must be T_q x T_v = " + std::to_string(T_q) + " x " +
                      std::to_string(T_v) + ": one row per query, one column per key.",
                  "Lemma 1, section 32.2.3");
    }
  }
  if (o.kind == Outcome::Kind::fault) {
    if (o.message.find("timed out") != std::string::npos) {
      return hint("timeout", "the submission does not answer in time",
                  "A case this small should take milliseconds: look for a loop that does not "
                  "end or work that grows much faster than T_q x T_v x d.",
                  "grader/PROTOCOL.md, limits");
    }
    // The fault message says what happened; the property's own hint (about
    // the values) would mislead.
    return hint("fault", "the submission gave no usable answer",
                "Run your function on the case above: the message says what happened (a "
                "crash, an exit, an answer of the wrong shape or type), and the end of the "
                "report shows what it wrote to stderr.",
                "grader/PROTOCOL.md");
  }
  if (o.kind == Outcome::Kind::refusal) {
    // The faulty case refused is what a refusal property asks; its valid
    // case refused (Failure::answered) is a refused valid input.
    if (refusal_property && !f.answered) return std::nullopt;
    if (o.error_type == "NotImplementedError") {
      return hint("not_implemented", "the function is not implemented yet",
                  "It raised NotImplementedError: the skeleton's body is still there. Write the "
                  "function as the exercise's statement asks.",
                  "the exercise's README.md");
    }
    if (attn::prop::builds_mask(c.op)) {
      return hint("mask_refused", "the mask function raised instead of returning the mask",
                  "It raised " + o.error_type + " for sizes that have a mask. A row with every "
                  "key forbidden (bottom-right alignment with T_q > T_v, or key_length = 0) is "
                  "part of the mask's definition: attention, not the mask, refuses such a row. "
                  "Return the T_q x T_v mask for every T_q, T_v >= 1 and 0 <= key_length <= T_v.",
                  "section 32.2.4; exercises/C1/README.md");
    }
    const auto [T_q, T_v] = query_key_counts(c);
    return hint("refuses_valid_input", "a valid input is refused",
                "It raised " + o.error_type + " on a case that has an answer (T_q = " +
                    std::to_string(T_q) + " queries, T_v = " + std::to_string(T_v) +
                    " keys; they may differ). Only a row with every key forbidden and "
                    "inconsistent shapes are errors; run your function on the counterexample "
                    "above.",
                "Lemma 1 and Lemma 2, sections 32.2.3-32.2.4");
  }
  return std::nullopt;
}

}  // namespace

std::optional<Hint> hint_for(const Verdict& v) {
  if (v.passed || v.skipped) return std::nullopt;
  if (!v.not_run.empty() && !v.failure) return std::nullopt;  // nothing was seen to go wrong
  if (v.failure) {
    if (auto h = from_outcome(v)) return h;
    // An answers file not in its format (not JSON, a member missing, a string
    // for a number, a wrong shape) has no number to recompute: answers.cpp
    // gives every wrong value a worst entry, a malformed file none.
    if (v.property_id == "answers" && !v.failure->worst)
      return hint("answers_malformed", "the answers file is malformed",
                  "It is not the JSON object the exercise's README shows, so no number in it "
                  "was compared: every member must be there, and each number a JSON number "
                  "(0.3302), not a string (\"0.3302\"). The line above says what is wrong.",
                  "section 32.2.8", false);
    if (v.property_id == "textbook_example" && v.counterexample)
      if (auto h = textbook_hint(*v.counterexample)) return h;
    if (v.property_id == "oracle_agreement" && v.counterexample)
      if (auto h = logits_oracle_hint(*v.counterexample)) return h;
  }
  if (v.failure && v.counterexample)
    if (const auto why = hint_ruled_out(v.property_id, *v.counterexample))
      return ruled_out_hint(v.property_id, *why);
  const auto& table = property_hints();
  if (auto it = table.find(v.property_id); it != table.end()) return it->second;
  if (!v.error.empty() && !v.failure) {
    return hint("grader_error", "the property could not be checked",
                "The grader reports a problem running this property (above); it is not a "
                "judgement of the submission. Tell the teacher.",
                "", false);
  }
  return std::nullopt;
}

Hint precision_hint(const std::string& precision) {
  return hint("within_" + precision, "the departure is " + precision + " rounding",
              "On the counterexample the answers are within the error bound of the definition "
              "computed in " + precision + ", though not of float64, which is what is graded: "
              "some step runs in " + precision + " (an array made " + precision +
              ", a float accumulator, literal or Eigen::MatrixXf in C++). Compute every step "
              "in float64 (double); if " + precision + " is meant, attnlab check takes "
              "--precision " + precision + ".",
              "reference/TOLERANCE.md (the bound is the declared unit roundoff's)", false);
}

std::string format_hint(const Hint& h, const std::string& indent, std::size_t width) {
  std::string text = "hint: " + h.headline + ". " + h.advice;
  if (!h.cites.empty()) text += " (" + h.cites + ")";
  return wrap_paragraph(text, indent, width);
}

}  // namespace attn::grader

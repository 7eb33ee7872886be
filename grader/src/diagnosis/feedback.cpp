// Feedback that states facts: what a failing property asks for, and what
// the failure's outcome shows for certain (a timeout, an answer of the wrong
// shape, a refusal of a valid input, a skeleton not implemented yet). Which
// misconception the answers show is the diagnosis stage's to say
// (diagnosis_stage.hpp): one shrunk counterexample fits many mistakes.
#include "diagnosis/feedback.hpp"
#include "diagnosis/diagnosis_text.hpp"

#include "attn/prop/case.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
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

// ------------------------------------------------- facts read from the outcome

/// T_q and T_v of the case as the submission sees them (attn::prop::case_sizes).
std::pair<Index, Index> query_key_counts(const Case& c) {
  const attn::prop::CaseSizes s = attn::prop::case_sizes(c);
  return {s.T_q, s.T_v};
}

/// What the answer puts at the forbidden keys, for exact_zeros: NaN, or a
/// weight that is not small (the mask did not reach the logit as -inf), says
/// more than "small but not exactly 0", which is true only of tiny weights.
std::optional<Hint> forbidden_weights_hint(const Case& c, const Outcome& o) {
  if (o.kind != Outcome::Kind::result || o.A.size() == 0) return std::nullopt;
  const auto [T_q, T_v] = query_key_counts(c);
  if (o.A.rows() != T_q || o.A.cols() != T_v) return std::nullopt;
  const bool logits_op = attn::prop::takes_logits(c.op);
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
// A property's own hint names the one cause its failures most often have.
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
  const unsigned inputs = attn::prop::operation_spec(c.op).inputs;
  if (property == "heads_in_order" && (inputs & attn::prop::input::projections) &&
      c.heads.size() < 2)
    return "the counterexample has one head, so the heads' order cannot be what departs";
  if (property == "tiled_equals_naive" && (inputs & attn::prop::input::tiles) &&
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

  const bool refusal_property = v.kind == attn::prop::PropertyKind::refusal;
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
  // Passed, skipped, or not run: nothing was seen to go wrong.
  if (v.status != attn::prop::VerdictStatus::failed && v.status != attn::prop::VerdictStatus::error)
    return std::nullopt;
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
  }
  if (v.failure && v.counterexample)
    if (const auto why = hint_ruled_out(v.property_id, *v.counterexample))
      return ruled_out_hint(v.property_id, *why);
  if (!v.hint.headline.empty())
    return hint(v.property_id, v.hint.headline, v.hint.advice, v.hint.cites, false);
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

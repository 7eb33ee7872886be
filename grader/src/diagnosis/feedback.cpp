// Feedback that teaches: the misconception behind a failing verdict.
//
// Two parts: shape detectors (compare the submission's weights with what each
// known misconception computes on the same counterexample), then the table of
// per-property hints, used when no shape is recognised.
#include "diagnosis/feedback.hpp"

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <utility>

#include "diagnosis/feedback_masks.hpp"
#include "diagnosis/feedback_multi_head.hpp"
#include "diagnosis/feedback_parts.hpp"

namespace attn::grader {
namespace {

using attn::Index;
using attn::Mask;
using attn::prop::Case;
using attn::prop::DMatrix;
using attn::prop::Outcome;
using attn::prop::Verdict;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Hint hint(std::string key, std::string misconception, std::string advice, std::string cites,
          bool from_shape = true) {
  return Hint{std::move(key), std::move(misconception), std::move(advice), std::move(cites),
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
            "softmax(s + c) = softmax(s) for any constant c; an implementation that loses this "
            "usually subtracts the wrong maximum (over all keys instead of the allowed ones) or "
            "clips the logits.",
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

// ------------------------------------------------------- the shape detectors

/// The logits and mask of a case, as the submission should have seen them.
struct Inputs {
  DMatrix S;
  std::optional<Mask> mask;
  bool qkv = false;
  Index d_k = 0;
  /// About the largest rounding error of a logit difference s_ij - m_i (the
  /// logits summed in another order, exp's argument rounded): what separates
  /// a computation from its exact-arithmetic equal, per unit of weight.
  double rounding = 0;
};

std::optional<Inputs> inputs_of(const Case& c) {
  Inputs in;
  in.qkv = attn::prop::takes_qkv(c.op);
  if (in.qkv) {
    if (c.Q.cols() != c.K.cols() || c.Q.cols() == 0) return std::nullopt;
    in.d_k = c.Q.cols();
    in.S = (c.Q * c.K.transpose()) / std::sqrt(static_cast<double>(in.d_k));
  } else {
    in.S = c.S;
  }
  if (c.mask && c.mask->rows() == in.S.rows() && c.mask->cols() == in.S.cols()) in.mask = c.mask;
  double size = 0;  // the largest |s_ij|, or |q_i| . |k_j| / sqrt(d_k) summed term by term
  for (Index i = 0; i < in.S.rows(); ++i)
    for (Index j = 0; j < in.S.cols(); ++j) {
      if (std::isfinite(in.S(i, j))) size = std::max(size, std::abs(in.S(i, j)));
      if (in.qkv)
        size = std::max(size, (c.Q.row(i).cwiseAbs() * c.K.row(j).cwiseAbs().transpose())(0, 0) /
                                  std::sqrt(static_cast<double>(in.d_k)));
    }
  in.rounding = 8 * std::numeric_limits<double>::epsilon() * double(in.d_k + 1) * size;
  return in;
}

bool is_forbidden(const Inputs& in, Index i, Index j) {
  return (in.mask && (*in.mask)(i, j)) || in.S(i, j) == -std::numeric_limits<double>::infinity();
}

bool has_partly_forbidden_row(const Inputs& in) {
  for (Index i = 0; i < in.S.rows(); ++i) {
    int f = 0;
    for (Index j = 0; j < in.S.cols(); ++j) f += is_forbidden(in, i, j);
    if (f > 0 && f < in.S.cols()) return true;
  }
  return false;
}

/// The right weights on these inputs (NaN rows where nothing is allowed).
DMatrix right_weights(const Inputs& in) {
  return softmax_rows(in.S, [&](Index i, Index j) { return !is_forbidden(in, i, j); });
}

/// The same over each column (the wrong axis).
DMatrix softmax_cols(const DMatrix& S, const Allowed& allowed) {
  const DMatrix T = softmax_rows(S.transpose(), [&](Index i, Index j) { return allowed(j, i); });
  return T.transpose();
}

/// A matches the model M wherever M is defined (at least one entry compared;
/// where M is NaN, the misconception's own computation is undefined and A
/// may hold anything), within a tolerance far below any misconception's effect.
bool matches(const DMatrix& A, const DMatrix& M, double tol = 1e-9) {
  if (A.rows() != M.rows() || A.cols() != M.cols() || A.size() == 0) return false;
  Index compared = 0;
  for (Index i = 0; i < M.rows(); ++i)
    for (Index j = 0; j < M.cols(); ++j) {
      const double a = A(i, j), m = M(i, j);
      if (std::isnan(m)) continue;
      if (!std::isfinite(a) || !(std::abs(a - m) <= tol * (1 + std::abs(m)))) return false;
      ++compared;
    }
  return compared > 0;
}

/// A equals the model M entry by entry: NaN exactly where M is NaN (there the
/// misconception itself gives NaN, and so must A), within `tol` elsewhere.
bool same_values(const DMatrix& A, const DMatrix& M, double tol) {
  if (A.rows() != M.rows() || A.cols() != M.cols() || A.size() == 0) return false;
  for (Index i = 0; i < M.rows(); ++i)
    for (Index j = 0; j < M.cols(); ++j) {
      const double a = A(i, j), m = M(i, j);
      if (std::isnan(m) != std::isnan(a)) return false;
      if (std::isnan(m) || a == m) continue;
      if (!std::isfinite(a) || !(std::abs(a - m) <= tol)) return false;
    }
  return true;
}

/// The tolerance for weights (at most 1) against a model on these inputs:
/// far below any misconception's effect, above the logits' rounding. A model
/// counts as different from the right answer only beyond twice this, so an
/// answer within it of the right one never matches the model.
double weight_tol(const Inputs& in) { return 1e-9 + 2 * in.rounding; }

double max_allowed_logit(const Inputs& in, Index i) {
  double m = -std::numeric_limits<double>::infinity();
  for (Index j = 0; j < in.S.cols(); ++j)
    if (!is_forbidden(in, i, j)) m = std::max(m, in.S(i, j));
  return m;
}

std::string fmt(double x, int digits = 4) {
  std::ostringstream os;
  os.precision(digits);
  os << x;
  return os.str();
}

/// Two values with enough digits to tell them apart (up to 17).
std::pair<std::string, std::string> fmt_apart(double a, double b) {
  int digits = 4;
  while (digits < 17 && fmt(a, digits) == fmt(b, digits)) ++digits;
  return {fmt(a, digits), fmt(b, digits)};
}

/// Tiny positive weights at forbidden positions: exp(-inf) computed as a
/// subnormal instead of 0, as Eigen 3.4's vectorised .array().exp() does
/// (it gives 5.56e-309 for -inf).
std::optional<Hint> subnormal_exp_of_minus_inf(const Inputs& in, const DMatrix& A) {
  if (A.rows() != in.S.rows() || A.cols() != in.S.cols()) return std::nullopt;
  for (Index i = 0; i < A.rows(); ++i)
    for (Index j = 0; j < A.cols(); ++j) {
      if (!is_forbidden(in, i, j) || !(A(i, j) > 0 && A(i, j) < 1e-300)) continue;
      return hint("subnormal_exp",
                  "your exp(-inf) is not 0: Eigen's vectorised exp gives a subnormal",
                  "Use std::exp, or set forbidden weights to 0 with .select(). A(" +
                      std::to_string(i) + ", " + std::to_string(j) + ") = " + fmt(A(i, j)) +
                      " at a forbidden position; Eigen 3.4's .array().exp() gives "
                      "5.56e-309 for -inf, where std::exp gives exactly 0.",
                  "Lemma 2, section 32.2.4; the note in the exercise's header");
    }
  return std::nullopt;
}

/// Weights that are not finite where the logits overflow exp().
std::optional<Hint> no_max_shift(const Inputs& in, const DMatrix& A) {
  if (A.rows() != in.S.rows() || A.cols() != in.S.cols()) return std::nullopt;
  for (Index i = 0; i < A.rows(); ++i) {
    bool bad = false;
    for (Index j = 0; j < A.cols(); ++j) bad = bad || !std::isfinite(A(i, j));
    if (!bad) continue;
    const double m = max_allowed_logit(in, i);
    if (std::isfinite(m) && (m > 709.78 || m < -745.1)) {
      return hint("no_max_shift", "exp() overflows: the row maximum is not subtracted",
                  "Row " + std::to_string(i) + " has a logit of " + fmt(m) +
                      "; exp() of anything above 709.78 is Inf (and below -745 is 0), so the "
                      "softmax becomes Inf/Inf = NaN. Subtract the maximum over the allowed "
                      "keys of each row before exp(): softmax is shift invariant, so the "
                      "result is the same and nothing overflows.",
                  "shift invariance, section 32.2.4");
    }
  }
  return std::nullopt;
}

/// NaN in a row that has allowed keys and logits exp() can take.
std::optional<Hint> nan_with_allowed_keys(const Inputs& in, const DMatrix& A) {
  if (A.rows() != in.S.rows() || A.cols() != in.S.cols()) return std::nullopt;
  for (Index i = 0; i < A.rows(); ++i) {
    if (!A.row(i).hasNaN()) continue;
    int forbidden = 0;
    for (Index j = 0; j < A.cols(); ++j) forbidden += is_forbidden(in, i, j);
    if (forbidden == A.cols()) continue;  // fully forbidden: another story
    if (in.mask && forbidden == 0) {
      return hint("inverted_mask", "the mask's polarity is inverted",
                  "Row " + std::to_string(i) +
                      " has no forbidden key, yet came back NaN: read the other way round, "
                      "every key of it is forbidden, its logits all become -inf and "
                      "exp(-inf - (-inf)) = NaN. In the text (and in attnlab) mask = true means "
                      "forbidden; PyTorch's boolean attn_mask means the opposite (true = may "
                      "attend), so passing it through needs ~mask.",
                  "section 32.2.4, Lemma 2");
    }
    return hint("nan_in_row", "a row with allowed keys comes back NaN",
                "Row " + std::to_string(i) +
                    " has allowed keys and ordinary logits, so its softmax is defined; a NaN "
                    "there comes from 0/0 or (-inf) - (-inf): take the row maximum over the "
                    "allowed keys only and check which entries are set to -inf.",
                "Lemma 2 and shift invariance, section 32.2.4");
  }
  return std::nullopt;
}

/// A came back T_v x T_q. The right weights transposed (A^T returned) say so
/// by their values, also when T_q = T_v and the shape cannot show it (then
/// only where transposing changes them); a wrong shape that matches nothing
/// else reads as a transposed score matrix (K Q^T).
std::optional<Hint> transposed(const Inputs& in, const DMatrix& A) {
  const Index T_q = in.S.rows(), T_v = in.S.cols();
  if (A.rows() != T_v || A.cols() != T_q || A.size() == 0) return std::nullopt;
  const bool square = T_q == T_v;
  const DMatrix correct = right_weights(in);
  if (square && matches(A, correct, 1e-13)) return std::nullopt;
  const std::string shape = std::to_string(T_v) + " x " + std::to_string(T_q);
  const DMatrix weights_t = correct.transpose();
  const double tol = weight_tol(in);
  if (matches(A, weights_t, tol) && !(square && matches(weights_t, correct, 2 * tol))) {
    return hint("transposed_weights", "A is returned transposed, keys by queries (T_v x T_q)",
                std::string(square ? "A is the right weights transposed: its columns sum to 1, "
                                     "not its rows (with T_q = T_v the shape cannot show it). "
                                   : "A came back T_v x T_q = " + shape +
                                         " and is the right weights transposed: its columns "
                                         "sum to 1. ") +
                    "The weights themselves are right: return A as computed, T_q x T_v, row i "
                    "holding query i's weights over the keys (A.T or a transposed result "
                    "array swaps them).",
                "Lemma 1, section 32.2.3");
  }
  if (square) return std::nullopt;
  return hint("transposed_scores", "the scores are K Q^T (keys in rows), not Q K^T",
              "A came back T_v x T_q = " + shape +
                  ". The scores are S = Q K^T / sqrt(d_k): one row per query, one column per "
                  "key; the softmax runs along each row.",
              "Lemma 1, section 32.2.3");
}

/// The softmax over every key (the maximum taken over the forbidden keys
/// too), the forbidden weights zeroed, each row renormalised: the right
/// weights in exact arithmetic, but a forbidden logit far above the allowed
/// ones underflows them all to 0, and the row becomes 0/0 = NaN. Only where
/// that shows on this case.
std::optional<Hint> renormalised_after_softmax(const Inputs& in, const DMatrix& A) {
  if (A.rows() != in.S.rows() || A.cols() != in.S.cols() || A.size() == 0) return std::nullopt;
  DMatrix R(in.S.rows(), in.S.cols());
  for (Index i = 0; i < R.rows(); ++i) {
    const double m = in.S.row(i).maxCoeff();  // over every key, forbidden ones included
    for (Index j = 0; j < R.cols(); ++j)
      R(i, j) = is_forbidden(in, i, j) ? 0.0 : std::exp(in.S(i, j) - m);
    R.row(i) /= R.row(i).sum();  // 0/0 when every allowed weight underflowed
  }
  const DMatrix correct = right_weights(in);
  const double tol = weight_tol(in);
  if (same_values(R, correct, 2 * tol) || !same_values(A, R, tol)) return std::nullopt;
  std::string where = "In a row whose largest logit is a forbidden key's,";
  for (Index i = 0; i < R.rows(); ++i) {
    if (!R.row(i).hasNaN() || correct.row(i).hasNaN()) continue;
    where = "Row " + std::to_string(i) + ": a forbidden key's logit is " +
            fmt(in.S.row(i).maxCoeff() - max_allowed_logit(in, i)) +
            " above every allowed one, so";
    break;
  }
  return hint("renormalised_after_softmax",
              "the softmax (its maximum included) runs over every key and is renormalised after "
              "the forbidden weights are zeroed",
              where + " exp(allowed - max) underflows to 0 (as exp(x) does below x = -745) "
                      "for every allowed key; once the forbidden weights are zeroed the row "
                      "sums to 0 and renormalising gives 0/0 = NaN. Renormalising after the "
                      "fact equals -inf before the softmax only in exact arithmetic: set "
                      "forbidden logits to -inf first, so the maximum is taken over the allowed "
                      "keys and the largest allowed weight is exp(0) = 1 (nothing to "
                      "underflow), and raise an error for a row with no allowed key instead of "
                      "dividing 0 by 0.",
              "Lemma 2 and shift invariance, section 32.2.4; exercise F4");
}

/// The weights match one misconception's computation on the same inputs.
std::optional<Hint> misconception_model(const Inputs& in, const DMatrix& A) {
  const Allowed allowed = [&](Index i, Index j) { return !is_forbidden(in, i, j); };
  const DMatrix correct = softmax_rows(in.S, allowed);
  // A is right (to a few ulps on these small cases): look elsewhere.
  if (matches(A, correct, 1e-13)) return std::nullopt;
  const bool masked = in.mask && has_partly_forbidden_row(in);

  if (masked) {
    DMatrix post = softmax_rows(in.S, [](Index, Index) { return true; });
    for (Index i = 0; i < post.rows(); ++i)
      for (Index j = 0; j < post.cols(); ++j)
        if (is_forbidden(in, i, j)) post(i, j) = 0;
    if (matches(A, post)) {
      return hint("mask_after_softmax", "the mask is applied after the softmax",
                  "The softmax ran over every key and the forbidden weights were zeroed "
                  "afterwards, so each row's denominator still holds the forbidden keys' "
                  "exponentials and the allowed weights sum to less than 1 (the exact zeros "
                  "at the forbidden positions are the telltale). Set forbidden logits to -inf "
                  "before the softmax.",
                  "Lemma 2, section 32.2.4; exercise F4");
    }
    // A finite stand-in for -inf (a common habit: -1e4, -1e9, float's lowest):
    // right for ordinary logits, wrong once the allowed logits fall below it.
    // Checked before the inverted mask, which it can resemble on such rows.
    for (const double fill : {-1e4, -1e9, -3.4028234663852886e38}) {
      DMatrix filled = in.S;
      for (Index i = 0; i < in.S.rows(); ++i)
        for (Index j = 0; j < in.S.cols(); ++j)
          if (is_forbidden(in, i, j)) filled(i, j) = fill;
      const DMatrix fill_model = softmax_rows(filled, [](Index, Index) { return true; });
      // Only where the fill makes a visible difference on this case.
      if (!matches(fill_model, correct) && matches(A, fill_model)) {
        return hint("mask_with_finite_value",
                    "forbidden logits get a large finite negative number (like -1e4 or -1e9) "
                    "instead of -inf",
                    "A finite fill is only 'very negative' next to ordinary logits: here the "
                    "allowed logits are lower still, so exp(fill - max) is not 0 and the "
                    "forbidden keys take the weight. Use -inf, whose exp is exactly 0 whatever "
                    "the other logits are.",
                    "Lemma 2, section 32.2.4");
      }
    }
    const DMatrix inverted = softmax_rows(in.S, [&](Index i, Index j) { return (*in.mask)(i, j); });
    if (matches(A, inverted)) {
      return hint("inverted_mask", "the mask's polarity is inverted",
                  "Weight goes to the forbidden keys and the allowed ones get 0. In the text "
                  "(and in attnlab) mask = true means forbidden; PyTorch's boolean attn_mask "
                  "means the opposite (true = may attend), so passing it through needs ~mask.",
                  "section 32.2.4, Lemma 2");
    }
    // The causal mask (j > i) applied whatever mask was passed.
    const DMatrix causal = softmax_rows(in.S, [](Index i, Index j) { return j <= i; });
    if (!matches(causal, correct) && matches(A, causal)) {
      return hint("causal_assumed", "the causal mask is used whatever mask is passed",
                  "A equals the softmax under the causal mask (key j forbidden for query i "
                  "when j > i), but this case's mask is another one (padding or arbitrary). "
                  "Apply the mask you are given, entry by entry.",
                  "section 32.2.4, Lemma 2");
    }
    DMatrix zero_filled = in.S;
    for (Index i = 0; i < in.S.rows(); ++i)
      for (Index j = 0; j < in.S.cols(); ++j)
        if (is_forbidden(in, i, j)) zero_filled(i, j) = 0;
    if (matches(A, softmax_rows(zero_filled, [](Index, Index) { return true; }))) {
      return hint("mask_with_zero", "forbidden logits are set to 0 instead of -inf",
                  "A logit of 0 is an ordinary score: exp(0 - max) > 0, so forbidden keys "
                  "still get weight. Set them to -inf, whose exp is exactly 0.",
                  "Lemma 2, section 32.2.4");
    }
  }
  if (in.S.rows() > 1 || in.S.cols() > 1) {
    const DMatrix by_column = softmax_cols(in.S, allowed);
    if (matches(A, by_column)) {
      return hint("softmax_wrong_axis", "the softmax normalises columns instead of rows",
                  "The columns of A sum to 1 and its rows do not: the softmax ran over the "
                  "queries (axis 0). Each query's weights are a distribution over the keys: "
                  "normalise along each row (axis=-1, keepdims=True).",
                  "F1, section 32.2.8; Lemma 1");
    }
  }
  if (in.qkv && in.d_k > 1) {
    const double r = std::sqrt(static_cast<double>(in.d_k));
    if (matches(A, softmax_rows(in.S * r, allowed))) {
      return hint("missing_scale", "the scores are not divided by sqrt(d_k)",
                  "A equals softmax(Q K^T): the logits are too large by the factor sqrt(d_k) = " +
                      fmt(r) + ". Divide Q K^T by sqrt(d_k), once.",
                  "Lemma 1, section 32.2.3");
    }
    if (matches(A, softmax_rows(in.S / r, allowed))) {
      return hint("double_scale", "the scores are divided by d_k (or by sqrt(d_k) twice)",
                  "A equals softmax(Q K^T / d_k): the logits are too small by the factor "
                  "sqrt(d_k) = " + fmt(r) + ". Divide Q K^T by sqrt(d_k), once.",
                  "Lemma 1, section 32.2.3");
    }
  }
  // Each row right up to a factor slightly below 1: an epsilon in the denominator.
  if (A.rows() == correct.rows() && A.cols() == correct.cols() && A.allFinite()) {
    bool all_scaled = true, some_short = false;
    for (Index i = 0; i < A.rows() && all_scaled; ++i) {
      if (std::isnan(correct(i, 0))) continue;
      const double sum = A.row(i).sum();
      if (!(sum > 0)) {
        all_scaled = false;
        break;
      }
      all_scaled = matches(A.row(i) / sum, correct.row(i), 1e-12);
      some_short = some_short || (sum < 1 - 1e-14 && sum > 1 - 1e-3);
    }
    if (all_scaled && some_short) {
      return hint("denominator_epsilon", "an epsilon is added to the softmax denominator",
                  "Each row of A is right up to a factor slightly below 1, so the rows sum "
                  "to a little less than 1. With the row maximum subtracted the denominator "
                  "is at least 1: no epsilon is needed, and it breaks F1.",
                  "F1, section 32.2.9; shift invariance, section 32.2.4");
    }
  }
  // Right to about single precision.
  if (A.rows() == correct.rows() && A.cols() == correct.cols() && A.allFinite()) {
    double worst = 0;
    bool all_float = true;
    for (Index i = 0; i < A.rows(); ++i)
      for (Index j = 0; j < A.cols(); ++j) {
        if (std::isnan(correct(i, j))) continue;
        worst = std::max(worst, std::abs(A(i, j) - correct(i, j)));
        all_float = all_float && static_cast<double>(static_cast<float>(A(i, j))) == A(i, j);
      }
    if (worst > 1e-10 && worst < 1e-5 && all_float) {
      return hint("single_precision", "the computation runs in float32",
                  "Every weight is a float32 value and the error (" + fmt(worst) +
                      ") is float32 rounding. Convert the inputs to float64 "
                      "(np.float64 / double) and keep every intermediate there.",
                  "reference/TOLERANCE.md; definition, section 32.2.2");
    }
  }
  return std::nullopt;
}

/// A is right but O is not A V.
std::optional<Hint> output_not_weights_times_v(const Case& c, const Inputs& in, const Outcome& o) {
  if (!in.qkv || o.O.rows() != c.Q.rows() || o.O.cols() != c.V.cols() || c.V.rows() != o.A.cols())
    return std::nullopt;
  const Allowed allowed = [&](Index i, Index j) { return !is_forbidden(in, i, j); };
  if (!matches(o.A, softmax_rows(in.S, allowed))) return std::nullopt;
  const DMatrix AV = o.A * c.V;
  if (matches(o.O, AV, 1e-8)) return std::nullopt;
  if (c.K.cols() == c.V.cols() && c.K.rows() == c.V.rows() && matches(o.O, o.A * c.K, 1e-8)) {
    return hint("output_uses_k", "O is computed from K instead of V",
                "The weights are right, but O equals A K: the values are V. O = A V.",
                "definition, section 32.2.2");
  }
  return hint("output_not_av", "the weights are right but O is not A V",
              "A matches the definition; O must be the weighted sum of the value rows, O = A V "
              "(T_q x d_v). Check the product's order and which matrix is multiplied.",
              "definition, section 32.2.2");
}

/// A fully forbidden row answered instead of refused: what came back says how.
std::optional<Hint> fully_forbidden_answer(const Case& c, const Inputs& in, const Outcome& o) {
  if (o.A.rows() != in.S.rows() || o.A.cols() != in.S.cols()) return std::nullopt;
  for (Index i = 0; i < in.S.rows(); ++i) {
    bool all = in.S.cols() > 0;
    for (Index j = 0; j < in.S.cols(); ++j) all = all && is_forbidden(in, i, j);
    if (!all) continue;
    const auto row = o.A.row(i);
    const std::string where = "Row " + std::to_string(i) + " has every key forbidden";
    if (row.hasNaN()) {
      return hint("nan_on_fully_forbidden", "a fully forbidden row becomes NaN",
                  where + ", so its logits are all -inf and exp(-inf - (-inf)) = NaN. That is "
                          "not an answer: check for a row with no allowed key before the "
                          "softmax and raise an error.",
                  "Lemma 2 (its hypothesis), section 32.2.4");
    }
    if ((row.array() == 0).all()) {
      return hint("mask_after_softmax", "the mask is applied after the softmax",
                  where + " and came back all zeros: the softmax ran first and the mask "
                          "zeroed the weights afterwards. Set forbidden logits to -inf before "
                          "the softmax, and raise an error for a row with no allowed key.",
                  "Lemma 2, section 32.2.4; exercise F4");
    }
    // What came back is the softmax of the row as if nothing were forbidden.
    const DMatrix unmasked =
        softmax_rows(in.S.row(i), [](Index, Index) { return true; });
    const bool equal_logits = (in.S.row(i).array() == in.S(i, 0)).all();
    if (!equal_logits && matches(row, unmasked)) {
      return hint("mask_not_applied", "the mask is not applied to this row (or is inverted)",
                  where + " and came back as the softmax of all its keys: the mask did not "
                          "reach it, or was read the other way round (in the text mask = true "
                          "means forbidden). Apply it before the softmax and raise an error for "
                          "a row with no allowed key.",
                  "Lemma 2, section 32.2.4");
    }
    const double u = 1.0 / static_cast<double>(in.S.cols());
    if (!equal_logits && ((row.array() - u).abs() < 1e-9).all()) {
      return hint("finite_sentinel", "forbidden logits get a large finite value, not -inf",
                  where + " and came back uniform (every weight 1/" +
                      std::to_string(in.S.cols()) +
                      "): a finite sentinel such as -1e9 makes all its logits equal, so the "
                      "softmax averages V silently. Use -inf and raise an error for a row with "
                      "no allowed key.",
                  "Lemma 2, section 32.2.4");
    }
  }
  (void)c;
  return std::nullopt;
}

// ---------------------------------------------- the tiled kernel (T1) detectors

/// How a tiled kernel (FlashAttention's Algorithm 1) goes wrong.
enum class TiledFlaw {
  none,                ///< as it should be
  no_rescale,          ///< l_i and acc_i not multiplied by exp(m_old - m_new)
  forbidden_tile_nan,  ///< a key tile with no allowed key not skipped: exp(-inf - (-inf))
  last_tile_dropped,   ///< only the T_v / tile_k (floor) whole key tiles are seen
};

/// What a tiled kernel answers on c: O (T_q x d_v) and logsumexp (T_q x 1).
struct Tiled {
  DMatrix O, logsumexp;
  bool refused = false;  ///< a row saw no allowed key: the kernel raises
};

/// The tiled kernel with `flaw`, in double precision on c's inputs: per query
/// row (the query tiling does not change a row's arithmetic), per key tile of
/// c.tile_k keys, a running maximum m, sum l and unnormalised output acc.
Tiled tiled_model(const Case& c, const Inputs& in, TiledFlaw flaw) {
  const double inf = std::numeric_limits<double>::infinity();
  const Index T_q = in.S.rows(), T_v = in.S.cols(), tile = c.tile_k;
  const Index end = flaw == TiledFlaw::last_tile_dropped ? T_v / tile * tile : T_v;
  Tiled t{DMatrix::Zero(T_q, c.V.cols()), DMatrix::Zero(T_q, 1)};
  for (Index i = 0; i < T_q; ++i) {
    double m = -inf, l = 0;
    DMatrix acc = DMatrix::Zero(1, c.V.cols());
    for (Index k0 = 0; k0 < end; k0 += tile) {
      const Index k1 = std::min(k0 + tile, T_v);
      double tile_max = -inf;
      for (Index j = k0; j < k1; ++j)
        if (!is_forbidden(in, i, j)) tile_max = std::max(tile_max, in.S(i, j));
      if (flaw == TiledFlaw::forbidden_tile_nan) {
        // Weights against the tile's maximum, then moved to the running one,
        // unguarded: a tile with no allowed key gives exp(-inf - (-inf)) = NaN.
        const double m_new = std::max(m, tile_max);
        double sum = 0;
        DMatrix pv = DMatrix::Zero(1, c.V.cols());
        for (Index j = k0; j < k1; ++j) {
          const double p = std::exp((is_forbidden(in, i, j) ? -inf : in.S(i, j)) - tile_max);
          sum += p;
          pv += p * c.V.row(j);
        }
        const double old_scale = std::exp(m - m_new), tile_scale = std::exp(tile_max - m_new);
        l = old_scale * l + tile_scale * sum;
        acc = old_scale * acc + tile_scale * pv;
        m = m_new;
        continue;
      }
      if (tile_max == -inf) continue;  // no allowed key in this tile: skipped
      const double m_new = std::max(m, tile_max);
      const double rescale = flaw == TiledFlaw::no_rescale ? 1.0 : std::exp(m - m_new);
      l *= rescale;
      acc *= rescale;
      for (Index j = k0; j < k1; ++j) {
        if (is_forbidden(in, i, j)) continue;
        const double p = std::exp(in.S(i, j) - m_new);
        l += p;
        acc += p * c.V.row(j);
      }
      m = m_new;
    }
    t.refused = t.refused || m == -inf;
    t.O.row(i) = acc / l;
    t.logsumexp(i, 0) = m + std::log(l);
  }
  return t;
}

/// "key tile [k0, k1)": the tile of c that holds key j.
std::string key_tile(const Case& c, Index T_v, Index j) {
  const Index k0 = j / c.tile_k * c.tile_k;
  return "key tile [" + std::to_string(k0) + ", " + std::to_string(std::min(k0 + c.tile_k, T_v)) +
         ")";
}

/// The hint for a key loop that stops before the last, shorter tile;
/// `what` says what the submission did on the case.
Hint last_tile_dropped_hint(const std::string& what) {
  return hint("tiled_last_tile_dropped", "the last, shorter key tile is skipped",
              what + " The key loop runs over T_v / tile_k whole tiles (floor division): loop "
                     "while k0 < T_v and end each tile at min(k0 + tile_k, T_v).",
              "definition, section 32.2.2; FlashAttention, Algorithm 1");
}

/// A tiled kernel refused a valid case on which its whole key tiles alone
/// (the first T_v / tile_k * tile_k keys) leave a row with no allowed key.
std::optional<Hint> tiled_refusal(const Case& c, const Outcome& o) {
  if (c.op != attn::prop::Operation::attention_tiled || c.tile_k < 1) return std::nullopt;
  const auto in = inputs_of(c);
  if (!in) return std::nullopt;
  const Index T_v = in->S.cols(), kept = T_v / c.tile_k * c.tile_k;
  if (kept == T_v) return std::nullopt;  // every tile whole: nothing to drop
  for (Index i = 0; i < in->S.rows(); ++i) {
    bool in_whole_tiles = false, anywhere = false;
    for (Index j = 0; j < T_v; ++j) {
      const bool allowed = !is_forbidden(*in, i, j);
      anywhere = anywhere || allowed;
      in_whole_tiles = in_whole_tiles || (allowed && j < kept);
    }
    if (anywhere && !in_whole_tiles) {
      return last_tile_dropped_hint(
          "It raised " + o.error_type + " on a valid case of T_v = " + std::to_string(T_v) +
          " keys in tiles of tile_k = " + std::to_string(c.tile_k) + ": row " +
          std::to_string(i) + " has allowed keys only in the shorter last tile, " +
          key_tile(c, T_v, kept) + ", and without that tile it looks fully forbidden.");
    }
  }
  return std::nullopt;
}

/// The tiled answer (O and logsumexp) is what a flawed kernel computes on
/// the same case, where that flaw changes the answer.
std::optional<Hint> tiled_misconception(const Case& c, const Inputs& in, const Outcome& o) {
  const Index T_q = in.S.rows(), T_v = in.S.cols();
  if (c.tile_k < 1 || c.V.rows() != T_v || o.O.rows() != T_q || o.O.cols() != c.V.cols() ||
      o.logsumexp.rows() != T_q || o.logsumexp.cols() != 1)
    return std::nullopt;
  // Rounding only, per unit of weight: a shrunk counterexample leaves a flaw
  // just above the property's bound, often far below 1e-9. Room for another
  // summation order, an exp per key and a rescale per tile; O mixes the rows
  // of V with the weights, so its rounding scales with them.
  const double tol =
      64 * std::numeric_limits<double>::epsilon() * double(T_v + 1) + 2 * in.rounding;
  const double v_scale = c.V.size() > 0 ? c.V.cwiseAbs().maxCoeff() : 0;
  const auto same = [&](const Tiled& a, const DMatrix& O, const DMatrix& lse, double k) {
    return same_values(O, a.O, k * tol * v_scale) && same_values(lse, a.logsumexp, k * tol);
  };
  const Tiled right = tiled_model(c, in, TiledFlaw::none);
  if (right.refused || same(right, o.O, o.logsumexp, 1)) return std::nullopt;
  // The flaw's answer: a result (the kernel did not raise), visibly not the right one.
  const auto shows = [&](const Tiled& t) {
    return !t.refused && !same(right, t.O, t.logsumexp, 2) && same(t, o.O, o.logsumexp, 1);
  };

  if (shows(tiled_model(c, in, TiledFlaw::last_tile_dropped))) {
    const Index kept = T_v / c.tile_k * c.tile_k;
    return last_tile_dropped_hint(
        "O and logsumexp are attention over the first " + std::to_string(kept) + " of the T_v = " +
        std::to_string(T_v) + " keys: with tile_k = " + std::to_string(c.tile_k) +
        " the shorter last tile, " + key_tile(c, T_v, kept) + ", is never seen.");
  }
  if (shows(tiled_model(c, in, TiledFlaw::no_rescale))) {
    // The first tile that raises a row's running maximum after an allowed tile.
    std::string where;
    for (Index i = 0; i < T_q && where.empty(); ++i) {
      double m = -std::numeric_limits<double>::infinity();
      for (Index k0 = 0; k0 < T_v; k0 += c.tile_k) {
        double tile_max = m;
        for (Index j = k0; j < std::min(k0 + c.tile_k, T_v); ++j)
          if (!is_forbidden(in, i, j)) tile_max = std::max(tile_max, in.S(i, j));
        if (std::isfinite(m) && tile_max > m) {
          where = "Row " + std::to_string(i) + ": " + key_tile(c, T_v, k0) +
                  " raises its running maximum by " + fmt(tile_max - m) + ", from " +
                  fmt_apart(m, tile_max).first + " to " + fmt_apart(m, tile_max).second;
          break;
        }
        m = tile_max;
      }
    }
    if (where.empty()) where = "A key tile raises a row's running maximum";
    return hint("tiled_no_rescale",
                "the running sum and output are not rescaled when the running maximum grows",
                where + ", and the answer is what comes out when l_i and acc_i keep their old "
                        "scale there: the earlier keys' terms are relative to the old maximum, "
                        "so they weigh exp(m_new - m_old) times too much. When a tile raises "
                        "m_i, multiply l_i and acc_i by exp(m_old - m_new) before adding the "
                        "tile's terms (exp(-inf) = 0 on the first tile).",
                "FlashAttention, Algorithm 1 and Theorem 1; shift invariance, section 32.2.4");
  }
  if (shows(tiled_model(c, in, TiledFlaw::forbidden_tile_nan))) {
    std::string where;
    for (Index i = 0; i < T_q && where.empty(); ++i) {
      if (!o.O.row(i).hasNaN() && !std::isnan(o.logsumexp(i, 0))) continue;
      for (Index k0 = 0; k0 < T_v; k0 += c.tile_k) {
        bool none = true;
        for (Index j = k0; j < std::min(k0 + c.tile_k, T_v); ++j)
          none = none && is_forbidden(in, i, j);
        if (!none) continue;
        where = "Row " + std::to_string(i) + " comes back NaN, and " + key_tile(c, T_v, k0) +
                " has no allowed key for it";
        break;
      }
    }
    if (where.empty()) where = "A row comes back NaN, and a key tile has no allowed key for it";
    return hint("tiled_forbidden_tile_nan", "a key tile with no allowed key turns the row into NaN",
                where + ": the tile's maximum is -inf and exp(-inf - (-inf)) = NaN, which then "
                        "spreads into l_i and acc_i. A tile with no allowed key for a row must "
                        "leave its m_i, l_i and acc_i as they are: skip it (forbidden keys "
                        "contribute exactly 0).",
                "Lemma 2, section 32.2.4; FlashAttention, Algorithm 1");
  }
  return std::nullopt;
}

std::optional<Hint> from_outcome(const Verdict& v) {
  const auto& f = *v.failure;
  if (!f.outcome || !v.counterexample) return std::nullopt;
  const Outcome& o = *f.outcome;
  // The case the answer is to (a metamorphic property's related case), else the counterexample.
  const Case& c = f.answered ? *f.answered : *v.counterexample;

  if (o.kind == Outcome::Kind::fault) {
    if (o.message.find("timed out") != std::string::npos) {
      return hint("timeout", "the submission does not answer in time",
                  "A case this small should take milliseconds: look for a loop that does not "
                  "end (a while loop on a condition the mask can make false forever) or work "
                  "that grows much faster than T_q x T_v x d.",
                  "grader/PROTOCOL.md, limits");
    }
    // An answer of the wrong shape keeps its matrices: a transposed A says more.
    if (o.A.size() > 0)
      if (const auto in = inputs_of(c))
        if (auto h = transposed(*in, o.A)) return h;
    // The fault message says what happened; the property's own hint (about
    // the values) would mislead.
    return hint("fault", "the submission gave no usable answer",
                "Run your function on the case above: the message says what happened (a "
                "crash, an exit, an answer of the wrong shape or type), and the end of the "
                "report shows what it wrote to stderr.",
                "grader/PROTOCOL.md");
  }
  if (o.kind == Outcome::Kind::refusal) {
    const bool should_answer = v.property_id != "fully_forbidden_refused" &&
                               v.property_id != "dk_mismatch_refused" &&
                               v.property_id != "non_finite_refused" &&
                               v.property_id != "shape_mismatch_refused";
    if (!should_answer) return std::nullopt;
    if (attn::prop::builds_mask(c.op)) {
      return hint("mask_refused", "the mask function raised instead of returning the mask",
                  "It raised " + o.error_type + " for sizes that have a mask. A row with every "
                  "key forbidden (bottom-right alignment with T_q > T_v, or key_length = 0) is "
                  "part of the mask's definition: attention, not the mask, refuses such a row. "
                  "Return the T_q x T_v mask for every T_q, T_v >= 1 and 0 <= key_length <= T_v.",
                  "section 32.2.4; exercises/C1/README.md");
    }
    if (auto h = tiled_refusal(c, o)) return h;
    const bool heads = c.op == attn::prop::Operation::multi_head_attention;
    const Index T_q = heads ? c.X.rows() : attn::prop::takes_qkv(c.op) ? c.Q.rows() : c.S.rows();
    const Index T_v = heads ? c.X.rows() : attn::prop::takes_qkv(c.op) ? c.K.rows() : c.S.cols();
    // A row with no forbidden key becomes fully forbidden when the mask is read
    // the other way round: a refusal there is the inverted polarity's signature.
    // (A masked softmax called without a mask gets an all-false one.)
    const bool all_false_mask = !c.mask && c.op == attn::prop::Operation::masked_softmax;
    if ((c.mask && c.mask->rows() == T_q && c.mask->cols() == T_v) || all_false_mask) {
      for (Index i = 0; i < T_q; ++i)
        if ((all_false_mask || !c.mask->row(i).any()) && T_v > 0) {
          return hint("inverted_mask", "the mask's polarity is inverted",
                      "It raised " + o.error_type + " on a valid case; row " + std::to_string(i) +
                          " of the mask forbids nothing, so read the other way round every key "
                          "of it is forbidden. In the text (and in attnlab) mask = true means "
                          "forbidden; PyTorch's boolean attn_mask means the opposite (true = may "
                          "attend), so passing it through needs ~mask.",
                      "section 32.2.4, Lemma 2");
        }
    }
    if (T_q != T_v) {
      return hint("assumes_square", "the code assumes T_q == T_v",
                  "It raised " + o.error_type + " on a valid case with T_q = " +
                      std::to_string(T_q) + " queries and T_v = " + std::to_string(T_v) +
                      " keys. Queries and keys may differ in number: Q is T_q x d_k, K is "
                      "T_v x d_k, A is T_q x T_v.",
                  "Lemma 1, section 32.2.3");
    }
    return hint("refuses_valid_input", "a valid input is refused",
                "It raised " + o.error_type +
                    " on a case that has an answer. Only a row with every key forbidden and "
                    "inconsistent shapes are errors; run your function on the counterexample "
                    "above.",
                "Lemma 1 and Lemma 2, sections 32.2.3-32.2.4");
  }

  if (c.op == attn::prop::Operation::multi_head_attention)
    return multi_head_hint(v.property_id, c, o);
  if (attn::prop::builds_mask(c.op)) return mask_hint(v.property_id, c, o);
  const auto in = inputs_of(c);
  if (!in) {
    if (v.property_id == "dk_mismatch_refused") return std::nullopt;
    return std::nullopt;
  }
  if (v.property_id == "fully_forbidden_refused") return fully_forbidden_answer(c, *in, o);
  if (c.op == attn::prop::Operation::attention_tiled) return tiled_misconception(c, *in, o);
  if (auto h = subnormal_exp_of_minus_inf(*in, o.A)) return h;
  if (auto h = renormalised_after_softmax(*in, o.A)) return h;
  if (auto h = no_max_shift(*in, o.A)) return h;
  if (auto h = nan_with_allowed_keys(*in, o.A)) return h;
  if (auto h = transposed(*in, o.A)) return h;
  if (auto h = misconception_model(*in, o.A)) return h;
  if (auto h = output_not_weights_times_v(c, *in, o)) return h;
  return std::nullopt;
}

}  // namespace

std::optional<Hint> diagnose(const Verdict& v) {
  if (v.passed || v.skipped) return std::nullopt;
  if (!v.not_run.empty() && !v.failure) return std::nullopt;  // nothing was seen to go wrong
  if (v.failure) {
    if (auto h = from_outcome(v)) return h;
  }
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

std::string format_hint(const Hint& h, const std::string& indent, std::size_t width) {
  std::string text = "hint: " + h.misconception + ". " + h.advice;
  if (!h.cites.empty()) text += " (" + h.cites + ")";
  std::istringstream words(text);
  std::string word, line, out;
  const std::string continuation = indent + "      ";
  bool first = true;
  while (words >> word) {
    const std::string& lead = first ? indent : continuation;
    if (!line.empty() && lead.size() + line.size() + 1 + word.size() > width) {
      out += lead + line + "\n";
      line.clear();
      first = false;
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) out += (first ? indent : continuation) + line + "\n";
  return out;
}

}  // namespace attn::grader

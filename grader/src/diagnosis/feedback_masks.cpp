// Mask-building mistakes rebuilt for the counterexample's sizes (feedback_masks.hpp).
#include "diagnosis/feedback_masks.hpp"
#include "diagnosis/feedback_parts.hpp"

#include <functional>
#include <vector>

#include "attn/prop/catalog.hpp"

namespace attn::grader {

namespace {

using attn::Index;
using attn::Mask;
using attn::prop::Operation;

/// The T_q x T_v mask whose entry (i, j) is rule(i, j).
Mask build(Index T_q, Index T_v, const std::function<bool(Index, Index)>& rule) {
  Mask M(T_q, T_v);
  for (Index i = 0; i < T_q; ++i)
    for (Index j = 0; j < T_v; ++j) M(i, j) = rule(i, j);
  return M;
}

bool same(const Mask& a, const Mask& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() && (a.array() == b.array()).all();
}

const char* const kCites = "section 32.2.4 (masks: true = forbidden)";

}  // namespace

std::optional<Hint> mask_hint(const std::string& property_id, const attn::prop::Case& c,
                              const attn::prop::Outcome& o) {
  const auto& m = c.mask_shape;
  const Mask expected = attn::prop::mask_definition(c);
  if (o.mask.rows() != m.T_q || o.mask.cols() != m.T_v) return std::nullopt;
  // Every mistake whose mask equals the answer; on a tiny case several can
  // (at 1x1 a forbidden diagonal and an inverted mask are both [x]).
  std::vector<Hint> found;
  if (c.op == Operation::causal_mask) {
    const Index offset = m.bottom_right ? m.T_v - m.T_q : 0;
    const Index other = m.bottom_right ? 0 : m.T_v - m.T_q;
    if (m.T_q != m.T_v &&
        same(o.mask, build(m.T_q, m.T_v, [&](Index i, Index j) { return j > i + other; }))) {
      found.push_back(shape_hint(
          "causal_alignment_swapped",
          m.bottom_right ? "the causal mask is aligned top-left where bottom-right was asked"
                         : "the causal mask is aligned bottom-right where top-left was asked",
          "With T_q = " + std::to_string(m.T_q) + " queries and T_v = " + std::to_string(m.T_v) +
              " keys the alignments differ: bottom-right forbids j > i + (T_v - T_q), so the "
              "last query sees every key (decoding new tokens against a cache of earlier ones); "
              "top-left forbids j > i. They agree only when T_q == T_v, which is why a test "
              "with square masks never notices.",
          kCites));
    }
    // With bottom-right alignment and T_v - T_q = 1 the top-left mask equals
    // the bottom-right one with the diagonal forbidden. A shrunk case would
    // have moved to top-left (where shrinking goes) if the diagonal were the
    // fault, so there the alignment is the explanation.
    if (found.empty() &&
        same(o.mask, build(m.T_q, m.T_v, [&](Index i, Index j) { return j >= i + offset; }))) {
      found.push_back(shape_hint("causal_diagonal_forbidden", "the causal mask also forbids the diagonal",
                        "Query i may attend key i itself: only the keys after it, j > i" +
                            std::string(m.bottom_right ? " + (T_v - T_q)" : "") +
                            ", are forbidden. With the diagonal gone the first query has no key "
                            "left, and attention must refuse it.",
                        kCites));
    }
    if (same(o.mask, build(m.T_q, m.T_v, [&](Index i, Index j) { return j < i + offset; }))) {
      found.push_back(shape_hint("causal_triangle_reversed", "the causal mask forbids the past instead of the future",
                        "The forbidden keys of query i are the later ones, j > i (the upper "
                        "triangle, numpy.triu(..., k=1)), not the earlier ones.",
                        kCites));
    }
  } else {
    const Index L = m.key_length;
    if (!o.mask.any() && L < m.T_v) {
      // Nothing forbidden although keys key_length .. T_v - 1 are padding.
      found.push_back(shape_hint(
          "padding_not_applied", "the padding mask forbids no key",
          (L + 1 == m.T_v ? "Key " + std::to_string(L) + " is"
                          : "Keys " + std::to_string(L) + " to " + std::to_string(m.T_v - 1) +
                                " are") +
              " padding, yet every entry is allowed. Padding forbids columns (keys) j >= "
              "key_length for every query. " +
              "A padding that starts a key too late (j > key_length) leaves these keys "
              "visible here" +
              (m.T_q <= L ? std::string(", and so does a mask built along the queries' axis "
                                        "(rows i >= key_length: none here, T_q = ") +
                                std::to_string(m.T_q) + ")."
                          : std::string(".")),
          kCites));
    } else if (same(o.mask, build(m.T_q, m.T_v, [&](Index, Index j) { return j > L; })) ||
               same(o.mask, build(m.T_q, m.T_v, [&](Index, Index j) { return j >= L - 1; }))) {
      found.push_back(shape_hint("padding_off_by_one", "the padding mask is off by one key",
                        "With key_length = " + std::to_string(L) + " the real keys are 0 to " +
                            std::to_string(L - 1) + " and the padding starts at key " +
                            std::to_string(L) + ": forbid exactly j >= key_length.",
                        kCites));
    }
    // Only where it shows: some query row at or past key_length.
    if (m.T_q > L && same(o.mask, build(m.T_q, m.T_v, [&](Index i, Index) { return i >= L; }))) {
      found.push_back(shape_hint("padding_on_queries", "the padding is applied to the queries (rows), not the keys",
                        "Padding removes keys: column j is forbidden for every query when "
                        "j >= key_length. Forbidding rows instead leaves the padded keys "
                        "visible (and, in attention, leaves rows with no key at all).",
                        kCites));
    }
  }
  const Mask inverted = expected.unaryExpr([](bool b) { return !b; });
  if (same(o.mask, inverted)) {
    found.push_back(shape_hint("mask_polarity_inverted", "the mask marks the allowed keys, not the forbidden ones",
                      "Every entry is the opposite of the definition: true must mean FORBIDDEN "
                      "(the text's M_ij = 1). PyTorch's boolean attn_mask and a tril of ones "
                      "mean the opposite (true = may attend); negate such a mask.",
                      kCites));
  }
  (void)property_id;
  return one_or_all(found, "mask_mistake_ambiguous",
                    "the mask is wrong in a way this small case cannot pin down",
                    "Build the mask by hand for this case and compare entry by entry.");
}

}  // namespace attn::grader

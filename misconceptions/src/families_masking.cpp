// How the mask is applied (Lemma 2, section 32.2.4: forbidden logits become
// -inf before the softmax). Families: post_softmax_mask,
// post_softmax_renormalised, finite_fill, fill_then_zeroed, multiplicative_mask,
// mask_times_inf, mask_ignored, inverted_mask, mask_transposed,
// mask_on_values, mask_ignored_in_output, causal_assumed.
#include <limits>

#include "families.hpp"
#include "masks.hpp"

namespace attn::mis::detail {

namespace {

/// finite_fill's candidate fills put in place (masked_fill), each with its text.
constexpr std::pair<double, const char*> kFills[] = {
    {0.0, "0"},         {-1.0, "-1"},          {-100.0, "-100"},
    {-1000.0, "-1000"},  // icefall's Zipformer: masked_fill(mask, -1000)
    {-1e4, "-1e4"},     {-1e5, "-1e5"},        {-1e6, "-1e6"},  // d2l's masked_softmax
    {-1e8, "-1e8"},  // Sockeye's -99999999 (-1e8 in float32)
    {-1e9, "-1e9"},
    {-1e10, "-1e10"},
    {-9e15, "-9e15"},  // pyGAT's and the UvA deep-learning notebooks' -9e15
    {-1e18, "-1e18"},  // OpenNMT-py's masked_fill(-1e18)
    {-1e20, "-1e20"},      {-1e30, "-1e30"},
    // JAX/Flax's dot_product_attention: -0.7 * float32's largest finite
    {-0.7 * double(std::numeric_limits<float>::max()), "-0.7 float max"},
    {-double(std::numeric_limits<float>::max()), "float lowest"},
    {-1e300, "-1e300"}, {-std::numeric_limits<double>::max(), "double lowest"}};

/// finite_fill's candidate fills added to the logits (an additive mask).
constexpr std::pair<double, const char*> kAddedFills[] = {
    {-100.0, "-100"},  // Swin Transformer's shifted-window mask of -100
    {-1e4, "-1e4"},  // BERT's (1 - mask) * -10000.0
    {-1e8, "-1e8"},  // Marian's max(lowest / 2, -99999999) (-1e8 in float32)
    {-1e9, "-1e9"},  // the TensorFlow tutorials' mask * -1e9
    {-1e10, "-1e10"},  // picoGPT's (1 - tri) * -1e10
    // JAX's Pallas TPU reference: DEFAULT_MASK_VALUE (-0.7 float32 max) added;
    // logits far below 0 plus it overflow to -inf where the fill in place does not
    {-0.7 * double(std::numeric_limits<float>::max()), "-0.7 float max"}};

/// Where and with what value the mask is applied: after the softmax, a
/// finite fill, a product, 0 * (-inf).
void add_mask_value_families(std::vector<Family>& out) {
  Knobs k;
  k.mask = MaskUse::post_zero;
  out.push_back(family("post_softmax_mask",
                       "The softmax runs over every key and the forbidden weights are zeroed "
                       "afterwards, so a masked row sums to less than 1.",
                       "Lemma 2, section 32.2.4; exercise F4 (32.2.9)",
                       "post_softmax_renormalised (rows sum to 1 there), mask_on_values (A unmasked)",
                       kMaskedOps, single("post_softmax_mask", k)));
  out.push_back(family("post_softmax_renormalised",
                       "The softmax runs over every key, the forbidden weights are zeroed and the "
                       "row renormalised: a large forbidden logit underflows the allowed weights "
                       "(0/0, or 0 with an epsilon in the new sum) and a fully forbidden row "
                       "gives NaN (or zeros) instead of an error.",
                       "Lemma 2, section 32.2.4; exercise F4 (32.2.9)",
                       "max_over_forbidden (refuses a fully forbidden row), multiplicative_mask; "
                       "the epsilon of A / (A.sum() + eps) is fitted",
                       kMaskedOps, [](Operation) {
                         std::vector<Model> v;
                         for (double e : {0.0, 1e-13, 1e-12, 1e-10, 1e-9, 1e-8, 1e-6}) {
                           Knobs k;
                           k.mask = MaskUse::post_renorm;
                           k.full_row = FullRow::natural;
                           k.mult_eps = e;
                           v.push_back(knob_model("post_softmax_renormalised",
                                                  {{"epsilon", e, num_text(e)}}, k));
                         }
                         return v;
                       }));
  k = Knobs{};
  out.push_back(family(
      "finite_fill",
      "Forbidden logits are filled with a finite number (0, -1e4, -1e9, float lowest...), or have "
      "one added (an additive mask, S + mask * -1e4), instead of -inf, so forbidden keys get weight "
      "when the allowed logits are below the fill.",
      "Lemma 2, section 32.2.4 (exp(-inf) = 0 exactly); masked_fill(-1e9) idiom",
      "the fill value is fitted: allowed logits just below each candidate fill tell them apart",
      kMaskedOps, [](Operation) {
        std::vector<Model> v;
        for (const auto& [f, t] : kFills) {
          Knobs k;
          k.mask = MaskUse::finite_fill;
          k.fill = f;
          v.push_back(knob_model("finite_fill", {{"fill", f, t}}, k));
        }
        // An additive mask: the fill added to the forbidden logits (S + mask * -1e4),
        // so a wholly forbidden row keeps the softmax of its own logits. (A float
        // lowest bias, finfo.min, absorbs the logits: such a row comes out uniform,
        // which fully_forbidden_answered already names.)
        for (const auto& [f, t] : kAddedFills) {
          Knobs k;
          k.mask = MaskUse::additive_fill;
          k.fill = f;
          k.full_row = FullRow::natural;  // it answers such a row: the softmax of the row's own logits
          v.push_back(knob_model("finite_fill", {{"fill", f, t}, {"fill is", 1, "added to the logits"}}, k));
        }
        return v;
      }));
  out.push_back(family(
      "fill_then_zeroed",
      "Forbidden logits are filled with a finite number (-1e9, -1e18...) before the softmax and "
      "their weights multiplied by the 0/1 keep mask after it, without renormalising: a fully "
      "forbidden row gives zeros, and so does a row whose allowed logits all lie below the fill.",
      "Lemma 2, section 32.2.4 (exp(-inf) = 0 exactly); gluon-nlp's masked_softmax "
      "(masked_fill(-1e18), softmax, times the mask)",
      "finite_fill (forbidden weights not zeroed there), multiplicative_mask (logits times the "
      "mask, renormalised); the fill is fitted: allowed logits just below each candidate fill "
      "tell them apart",
      kMaskedOps, [](Operation) {
        std::vector<Model> v;
        const std::pair<double, const char*> fills[] = {
            {-1e9, "-1e9"}, {-1e18, "-1e18"}};
        for (const auto& [f, t] : fills) {
          Knobs k;
          k.mask = MaskUse::fill_zeroed;
          k.fill = f;
          v.push_back(knob_model("fill_then_zeroed", {{"fill", f, t}}, k));
        }
        return v;
      }));
  out.push_back(family(
      "multiplicative_mask",
      "The mask is applied by multiplying by the 0/1 keep indicator (logits times keep, softmax, "
      "times keep, renormalised), so forbidden logits count as 0 and allowed logits far below 0 "
      "underflow to an all-zero row.",
      "Lemma 2, section 32.2.4; AllenNLP-style masked_softmax",
      "finite_fill(0) (forbidden weights not zeroed there), post_softmax_renormalised", kMaskedOps,
      [](Operation) {
        std::vector<Model> v;
        for (double e : {0.0, 1e-13}) {
          Knobs k;
          k.mask = MaskUse::multiplicative;
          k.mult_eps = e;
          v.push_back(knob_model("multiplicative_mask", {{"epsilon", e, num_text(e)}}, k));
        }
        return v;
      }));
  k = Knobs{};
  k.mask = MaskUse::times_inf;
  out.push_back(family("mask_times_inf",
                       "The mask is applied as S + mask * (-inf): 0 * (-inf) is NaN, so every "
                       "allowed logit becomes NaN whenever a mask is passed.",
                       "IEEE 754 (0 * inf is invalid); Lemma 2, section 32.2.4",
                       "no_max_shift (NaN only for large logits, not for every masked case)",
                       kMaskedOps, single("mask_times_inf", k)));
}

/// Which entries the mask forbids: none, the allowed ones, the transpose,
/// the values instead of the weights, the weights only, a causal mask assumed.
void add_mask_entry_families(std::vector<Family>& out) {
  const std::vector<Operation> kSingleHeadMasked = {Operation::masked_softmax, Operation::attention,
                                                    Operation::attention_tiled};
  Knobs k;
  k.mask = MaskUse::ignored;
  out.push_back(family("mask_ignored", "The mask argument is accepted but never applied.",
                       "Lemma 2, section 32.2.4",
                       "mask_ignored_in_output (A masked there), causal_assumed", kSingleHeadMasked,
                       single("mask_ignored", k)));
  k = Knobs{};
  k.mask = MaskUse::inverted;
  out.push_back(family(
      "inverted_mask",
      "Mask true is read as \"may attend\" (the convention of "
      "torch.nn.functional.scaled_dot_product_attention's boolean mask), the opposite of the "
      "text; for a built mask, true marks the allowed keys (a lower triangle of ones).",
      "Convention of section 32.2.4 (M_ij = 1 forbidden)",
      "mask_transposed, mask_ignored; for C1 triangle_reversed (differs on the diagonal)",
      {Operation::masked_softmax, Operation::attention, Operation::attention_tiled,
       Operation::multi_head_attention, Operation::causal_mask, Operation::padding_mask},
      [k](Operation op) {
        if (op == Operation::causal_mask || op == Operation::padding_mask) {
          MaskRule r;
          r.causal = MaskRule::Causal::inverted;
          r.padding = MaskRule::Padding::inverted;
          Model m;
          m.key = "inverted_mask";
          m.predict = [r](const Case& c, const Precision&) { return predict_mask(c, r); };
          return std::vector<Model>{m};
        }
        return std::vector<Model>{knob_model("inverted_mask", {}, k)};
      }));
  k = Knobs{};
  k.mask = MaskUse::transposed;
  out.push_back(family("mask_transposed",
                       "The mask is indexed [key, query] (mask^T applied): unnoticed with a "
                       "symmetric mask, wrong keys otherwise, an error when T_q != T_v.",
                       "Convention of section 32.2.4 (rows are queries)",
                       "inverted_mask; a square non-symmetric mask tells them apart", kMaskedOps,
                       single("mask_transposed", k)));
  k = Knobs{};
  k.mask = MaskUse::on_values;
  out.push_back(family("mask_on_values",
                       "The softmax is unmasked; the forbidden keys' value rows are dropped from "
                       "O instead, so O is not a weighted average and A ignores the mask.",
                       "Lemma 2, section 32.2.4; O = A V (32.2.2)",
                       "post_softmax_mask (A zeroed there), mask_ignored_in_output",
                       {Operation::attention, Operation::attention_tiled}, single("mask_on_values", k)));
  k = Knobs{};
  k.mask = MaskUse::ignored_in_output;
  out.push_back(family("mask_ignored_in_output",
                       "The masked weights are returned, but O is computed from the unmasked "
                       "softmax.",
                       "O = A V with the masked A (section 32.2.2, Lemma 2)",
                       "mask_ignored (A unmasked there), mask_on_values", {Operation::attention},
                       single("mask_ignored_in_output", k)));
  k = Knobs{};
  k.mask = MaskUse::causal_assumed;
  out.push_back(family("causal_assumed",
                       "Every mask is taken to be the causal one (j > i forbidden), whatever "
                       "mask is passed.",
                       "Section 32.2.4 (a mask is an input)",
                       "mask_ignored; a non-causal mask tells them apart", kSingleHeadMasked,
                       single("causal_assumed", k)));
}

}  // namespace

void add_masking_families(std::vector<Family>& out) {
  add_mask_value_families(out);
  add_mask_entry_families(out);
}

}  // namespace attn::mis::detail

// Answers where the definition refuses: a fully forbidden row (Lemma 2 needs
// an allowed key), Q and K of different widths (Lemma 1), a NaN/Inf input.
// These models are the definition on every valid case; what they change is
// the answer to the refusal case.
#include "families.hpp"

namespace attn::mis::detail {

void add_refusal_families(std::vector<Family>& out) {
  out.push_back(family(
      "fully_forbidden_answered",
      "A query row with every key forbidden is answered (NaN, zeros or a uniform average) "
      "instead of refused.",
      "Lemma 2, section 32.2.4 (the softmax of an empty set is undefined)",
      "post_softmax_renormalised and finite_fill also answer it, but differ on valid cases",
      {Operation::softmax_rows, Operation::masked_softmax, Operation::attention,
       Operation::attention_tiled, Operation::multi_head_attention},
      [](Operation) {
        std::vector<Model> v;
        const std::pair<FullRow, const char*> answers[] = {
            {FullRow::nan, "NaN"}, {FullRow::zeros, "zeros"}, {FullRow::uniform, "uniform"}};
        double i = 0;
        for (const auto& [f, t] : answers) {
          Knobs k;
          k.full_row = f;
          k.refuse_dk_mismatch = true;
          k.refuse_non_finite = true;
          v.push_back(knob_model("fully_forbidden_answered", {{"answer", ++i, t}}, k));
        }
        return v;
      }));
  out.push_back(family(
      "dk_mismatch_accepted",
      "Q and K of different widths are silently cut to the smaller d_k instead of refused.",
      "Lemma 1, section 32.2.3 (Q K^T needs equal widths)",
      "only a d_k mismatch case shows it; the width in the scale is fitted (the common one, "
      "Q's as in d_k = Q.shape[-1] with a zip()-truncated dot product, or K's)",
      {Operation::attention, Operation::attention_tiled}, [](Operation) {
        std::vector<Model> v;
        const std::pair<DkScaleWidth, const char*> widths[] = {
            {DkScaleWidth::truncated, "1/sqrt(common width)"},
            {DkScaleWidth::q_width, "1/sqrt(Q's width)"},
            {DkScaleWidth::k_width, "1/sqrt(K's width)"}};
        double n = 0;
        for (const auto& [w, t] : widths) {
          Knobs k;
          k.truncate_dk = true;
          k.dk_scale_width = w;
          k.full_row = FullRow::refuse;
          k.refuse_non_finite = true;
          v.push_back(knob_model("dk_mismatch_accepted", {{"scale", n++, t}}, k));
        }
        return v;
      }));
  Knobs k;
  k.swallow_non_finite = true;
  k.full_row = FullRow::refuse;
  k.refuse_dk_mismatch = true;
  out.push_back(family("non_finite_swallowed",
                       "A NaN or Inf input gives a finite answer instead of an error.",
                       "Section 32.2.7 (inputs must be finite; a NaN must not vanish)",
                       "only a non-finite input case shows it", kValueOps,
                       single("non_finite_swallowed", k)));
}

}  // namespace attn::mis::detail

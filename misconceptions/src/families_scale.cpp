// The scale of the logits (Lemma 1, section 32.2.3: S = Q K^T / sqrt(d_k)).
// Families: wrong_scale, mh_scale_by_d_model (in families_multi_head.cpp).
#include "families.hpp"

namespace attn::mis::detail {

void add_scale_families(std::vector<Family>& out) {
  out.push_back(family(
      "wrong_scale",
      "The logits are scaled by something other than 1/sqrt(d_k): not at all, twice (1/d_k), by "
      "1/sqrt(d_v), by 1/sqrt(T_v), multiplied by sqrt(d_k), or by a width written into the code "
      "(1/sqrt(64) whatever d_k).",
      "Lemma 1, section 32.2.3",
      "the factor is fitted; a case with d_k, d_v, T_v distinct and not 1 tells the factors apart",
      kQkvOps, [](Operation op) {
        std::vector<Model> v;
        const std::pair<Scale, const char*> scales[] = {{Scale::none, "none"},
                                                        {Scale::dk, "1/d_k (scaled twice)"},
                                                        {Scale::sqrt_dv, "1/sqrt(d_v)"},
                                                        {Scale::sqrt_Tv, "1/sqrt(T_v)"},
                                                        {Scale::times_sqrt_dk, "sqrt(d_k)"}};
        int i = 0;
        for (const auto& [s, t] : scales) {
          ++i;
          if (op == Operation::multi_head_attention && s == Scale::sqrt_Tv) continue;
          Knobs k;
          k.scale = s;
          v.push_back(knob_model("wrong_scale", {{"scale", double(i), t}}, k));
        }
        // d_k written into the code (a configuration's 64, the model's
        // width): 1/sqrt(width) whatever the inputs' d_k. The widths of
        // "Attention is all you need" (d_k 64, d_model 512), BERT-base (768)
        // and the GPT lecture code of karpathy/ng-video-lecture (384).
        const std::pair<double, const char*> widths[] = {
            {64, "1/sqrt(64), fixed"}, {384, "1/sqrt(384), fixed"}, {512, "1/sqrt(512), fixed"},
            {768, "1/sqrt(768), fixed"}};
        for (const auto& [width, t] : widths) {
          if (op == Operation::multi_head_attention) break;
          Knobs k;
          k.scale = Scale::fixed_width;
          k.scale_width = width;
          v.push_back(knob_model("wrong_scale", {{"scale", width, t}}, k));
        }
        return v;
      }));
}

}  // namespace attn::mis::detail

// The scale of the logits (Lemma 1, section 32.2.3: S = Q K^T / sqrt(d_k)).
// Families: wrong_scale, mh_scale_by_d_model (in families_multi_head.cpp).
#include "families.hpp"

namespace attn::mis::detail {

void add_scale_families(std::vector<Family>& out) {
  out.push_back(family(
      "wrong_scale",
      "The logits are scaled by something other than 1/sqrt(d_k): not at all, twice (1/d_k), by "
      "1/sqrt(d_v), by 1/sqrt(T_v), or multiplied by sqrt(d_k).",
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
        return v;
      }));
}

}  // namespace attn::mis::detail

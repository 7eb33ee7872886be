// Multi-head attention (section 32.2.5; Vaswani et al. 2017, 3.2.2):
// O = [O_1, ..., O_h] W_O. Families: mh_heads_reversed, mh_one_wo_per_head,
// mh_scale_by_d_model, mh_mask_not_forwarded.
#include "families.hpp"

namespace attn::mis::detail {

void add_multi_head_families(std::vector<Family>& out) {
  const std::vector<Operation> mh = {Operation::multi_head_attention};
  Knobs k;
  k.heads = Heads::reversed;
  out.push_back(family("mh_heads_reversed",
                       "The heads are concatenated last head first, so head i meets the rows of "
                       "W_O meant for head h-1-i.",
                       "Section 32.2.5 (concatenation in head order)",
                       "needs h >= 2 heads with different outputs", mh,
                       single("mh_heads_reversed", k)));
  k = Knobs{};
  k.heads = Heads::one_wo;
  out.push_back(family("mh_one_wo_per_head",
                       "Every head's output is multiplied by the same first d_v rows of W_O and "
                       "the products summed.",
                       "Section 32.2.5 ([O_1, ..., O_h] W_O)", "needs h >= 2", mh,
                       single("mh_one_wo_per_head", k)));
  k = Knobs{};
  k.scale = Scale::sqrt_dmodel;
  out.push_back(family("mh_scale_by_d_model",
                       "Each head's logits are divided by sqrt(d_model) instead of sqrt(d_k).",
                       "Lemma 1 (32.2.3) applied per head, section 32.2.5",
                       "wrong_scale; needs d_model != d_k", mh, single("mh_scale_by_d_model", k)));
  k = Knobs{};
  k.forward_mask = false;
  out.push_back(family("mh_mask_not_forwarded",
                       "The layer takes the mask but never passes it to the heads.",
                       "Section 32.2.5 (every head is masked)",
                       "needs a mask; a row with every key forbidden may be refused (a check "
                       "before the mask is dropped) or answered",
                       mh,
                       single("mh_mask_not_forwarded", k)));
}

}  // namespace attn::mis::detail

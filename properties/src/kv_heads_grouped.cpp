// Grouped-query attention (Ainslie et al. 2023, section 2; batched.hpp):
// the H query heads fall into H_kv groups of H / H_kv consecutive heads, and
// group g attends with kv head g, so query head h uses kv head h / (H / H_kv)
// (PyTorch's enable_gqa, flash-attention). Each head's output is held to the
// oracle's attention with that kv head, within the per-head bound; the cases
// have 2 <= H_kv < H, where h % H_kv (np.tile's order) differs.
#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "batched_check.hpp"

namespace attn::prop {

Property kv_heads_grouped() {
  Property p;
  p.id = "kv_heads_grouped";
  p.hint = {"query heads do not use their group's key and value head",
            "With H query heads and H_kv key/value heads, query head h uses kv head h / (H / "
            "H_kv): consecutive query heads share one (repeat_interleave, not tile).",
            "Ainslie et al. 2023 (GQA), section 2"};
  p.title = "query head h attends with kv head h / (H / H_kv): consecutive query heads share one";
  p.source =
      "Ainslie et al. 2023 (GQA), section 2; PyTorch scaled_dot_product_attention(enable_gqa); "
      "per head: Definition, section 32.2.2";
  p.op = Operation::batched_attention;
  p.generator = [](const GenConfig& cfg) {
    return gen_batched_case(cfg, BatchedFocus::grouped_heads);
  };
  p.check = [](Subject& s, const Case& c) -> std::optional<Failure> {
    return detail::check_batched(
        s, c,
        {{"query head h attending with kv head h % H_kv (np.tile's order) instead of "
          "h / (H / H_kv) (np.repeat's, consecutive heads sharing)",
          detail::kv_heads_modulo(c)}}, "kv_heads_grouped");
  };
  return p;
}

}  // namespace attn::prop

// The online softmax over key tiles (FlashAttention, Dao et al. 2022,
// Algorithm 1; the library's attention_tiled, exercise T1). Families:
// tiled_no_rescale, tiled_forbidden_tile_nan, tiled_last_tile_dropped.
#include "families.hpp"

namespace attn::mis::detail {

void add_tiled_families(std::vector<Family>& out) {
  const std::vector<Operation> tiled = {Operation::attention_tiled};
  Knobs k;
  k.tiled = Tiled::no_rescale;
  out.push_back(family("tiled_no_rescale",
                       "When a key tile raises the running maximum, the running sum and output "
                       "are not rescaled by exp(m_old - m_new).",
                       "FlashAttention, Dao et al. 2022, Algorithm 1 (lines 10-12)",
                       "needs logits increasing across tiles; one tile hides it", tiled,
                       single("tiled_no_rescale", k)));
  k = Knobs{};
  k.tiled = Tiled::forbidden_tile_nan;
  out.push_back(family("tiled_forbidden_tile_nan",
                       "A key tile with no allowed key for a row gives exp(-inf - (-inf)) = NaN, "
                       "which poisons the row.",
                       "FlashAttention, Dao et al. 2022, Algorithm 1, unguarded",
                       "needs a wholly forbidden key tile", tiled,
                       single("tiled_forbidden_tile_nan", k)));
  k = Knobs{};
  k.tiled = Tiled::last_tile_dropped;
  out.push_back(family("tiled_last_tile_dropped",
                       "The key loop runs over T_v // tile_k whole tiles, so a shorter last tile "
                       "is never seen.",
                       "exercises/T1/README.md (tiles cover every key)",
                       "needs tile_k not dividing T_v", tiled, single("tiled_last_tile_dropped", k)));
}

}  // namespace attn::mis::detail

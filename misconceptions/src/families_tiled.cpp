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
  // Two forms of the unguarded update, one member each (parameter "maximum"):
  // Algorithm 1 shifts each tile by its own maximum m~ (exp(S - m~) is NaN on
  // every wholly forbidden tile); the running-maximum form shifts by
  // m_new = max(m, m~) (NaN only while m_new is still -inf, i.e. on a
  // wholly forbidden tile before the row's first allowed key).
  out.push_back(family("tiled_forbidden_tile_nan",
                       "A key tile with no allowed key for a row gives exp(-inf - (-inf)) = NaN, "
                       "which poisons the row (with each tile's own maximum, as in Algorithm 1, "
                       "any such tile; with the running maximum, one before the row's first "
                       "allowed key).",
                       "FlashAttention, Dao et al. 2022, Algorithm 1, unguarded",
                       "needs a wholly forbidden key tile; the form (parameter \"maximum\") is "
                       "fitted: a wholly forbidden tile after an allowed key tells the two apart",
                       tiled,
                       [](Operation) {
                         Knobs a, b;
                         a.tiled = Tiled::forbidden_tile_nan;
                         b.tiled = Tiled::forbidden_tile_nan_running;
                         return std::vector<Model>{
                             knob_model("tiled_forbidden_tile_nan",
                                        {{"maximum", 1, "each tile's own (Algorithm 1)"}}, a),
                             knob_model("tiled_forbidden_tile_nan", {{"maximum", 2, "running"}},
                                        b)};
                       }));
  k = Knobs{};
  k.tiled = Tiled::last_tile_dropped;
  out.push_back(family("tiled_last_tile_dropped",
                       "The key loop runs over T_v // tile_k whole tiles, so a shorter last tile "
                       "is never seen.",
                       "exercises/T1/README.md (tiles cover every key)",
                       "needs tile_k not dividing T_v", tiled, single("tiled_last_tile_dropped", k)));
}

}  // namespace attn::mis::detail

// Section 32.2.4 (cost) and FlashAttention (Dao et al. 2022, Theorem 1): the
// tiled computation with an online softmax is exact attention, only computed
// in another order. The subject's tiled O is held against its own naive O,
// within the sum of both error bounds, for every tile size from 1 to T + 1.
#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "check_util.hpp"

namespace attn::prop {

Property tiled_equals_naive() {
  Property p;
  p.id = "tiled_equals_naive";
  p.kind = PropertyKind::metamorphic;
  p.hint = {"the tiled result differs from the naive one",
            "The online softmax must rescale the running sum and output whenever the running "
            "maximum grows, and a tile whose keys are all forbidden must leave them unchanged.",
            "section 32.2.4; FlashAttention, Theorem 1"};
  p.title = "tiled attention (online softmax) equals naive attention for every tile size";
  p.source = "section 32.2.4 (cost); FlashAttention, Dao et al. 2022, Theorem 1";
  p.op = Operation::attention_tiled;
  p.generator = [](const GenConfig& cfg) { return gen_case(cfg, MaskPolicy::any); };
  p.check = [](Subject& s, const Case& c) -> std::optional<Failure> {
    Case naive = c;
    naive.op = Operation::attention;
    const std::string what = "tiles " + std::to_string(c.tile_q) + "x" + std::to_string(c.tile_k) +
                             ", against naive attention";
    if (!s.supports(Operation::attention)) {
      Failure f;
      f.summary = s.name() + " has no naive attention to compare with";
      return f;
    }
    // The tiled answer is the one under test: it is the "related" side, so a
    // failure names its entries and compares them with the naive ones.
    return detail::check_related(s, naive, c, {}, {}, what);
  };
  return p;
}

}  // namespace attn::prop

// FlashAttention-2 (Dao 2023, arXiv:2307.08691, Algorithm 2): the tiled
// backward, which recomputes P = exp(S - L) from Q, K and the forward's
// logsumexp L and takes D = rowsum(dO o O), computes the same gradients as
// the naive backward in another order. The subject's tiled dQ, dK, dV are
// held against its own naive ones, within the sum of both bounds (the
// recomputing class with the forward's online rescales, and the naive
// class: reference/TOLERANCE.md, "The backward pass"), for tile sizes from 1
// to T + 1 (ones that divide T, ones that do not, one past it).
#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "backward_check.hpp"

namespace attn::prop {

Property backward_tiled_equals_naive() {
  Property p;
  p.id = "backward_tiled_equals_naive";
  p.kind = PropertyKind::metamorphic;
  p.hint = {"the tiled gradients differ from the naive ones",
            "Each tile of keys must recompute its weights from the logits and the forward's "
            "logsumexp (P = exp(S - L), not a softmax over the tile alone), and dQ must add up "
            "the contribution of every tile of keys.",
            "FlashAttention-2, Algorithm 2"};
  p.title = "the tiled backward (P recomputed from the logsumexp) equals the naive backward for "
            "every tile size";
  p.source = "FlashAttention-2, Dao 2023, Algorithm 2; reference/TOLERANCE.md, \"The backward pass\"";
  p.op = Operation::attention_backward;
  p.generator = [](const GenConfig& cfg) {
    return with_params(gen_case(cfg, MaskPolicy::any), [](const Case&) { return std::size_t(2); },
                       integer_values(64));
  };
  p.check = [](Subject& s, const Case& c) -> std::optional<Failure> {
    Case naive = c, tiled = c;
    naive.tile_q = naive.tile_k = 0;
    // Tiles from 1 to T + 1, from the property's knobs.
    tiled.tile_q = 1 + Index(std::abs(c.params.at(0))) % (c.Q.rows() + 1);
    tiled.tile_k = 1 + Index(std::abs(c.params.at(1))) % (c.K.rows() + 1);
    const std::string what = "tiles " + std::to_string(tiled.tile_q) + "x" +
                             std::to_string(tiled.tile_k) + ", against the naive backward";
    // The tiled answer is the one under test: the related side.
    auto f = detail::check_related_gradients(s, naive, tiled, {}, {}, what);
    if (f) f->shown = tiled;  // the counterexample with its tiles
    return f;
  };
  return p;
}

}  // namespace attn::prop

// Section 32.2.4's mask (true = forbidden) given for a whole batch: a 2-D
// (T_q, T_v) or (1, T_v) mask, or a 4-D one with dimensions of 1, read as
// NumPy broadcasts it (each dimension equal to (N, H, T_q, T_v)'s or 1,
// aligned at the right). Each head is held to the oracle with the mask
// entries it reads.
#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "batched_check.hpp"

namespace attn::prop {

Property mask_broadcast() {
  Property p;
  p.id = "mask_broadcast";
  p.hint = {"the mask is not broadcast over batch and heads",
            "A mask of shape (T_q, T_v), or 4-D with each dimension equal to (N, H, T_q, T_v) "
            "or 1, applies to every (n, h) it broadcasts to, as NumPy's broadcasting does.",
            "section 32.2.4; NumPy broadcasting rules"};
  p.title = "a 2-D or 4-D mask is broadcast over (N, H, T_q, T_v) as NumPy does "
            "(each dimension equal or 1)";
  p.source = "section 32.2.4 (masks: true = forbidden); NumPy broadcasting rules";
  p.op = Operation::batched_attention;
  p.generator = [](const GenConfig& cfg) {
    return gen_batched_case(cfg, BatchedFocus::broadcast_mask);
  };
  p.check = [](Subject& s, const Case& c) -> std::optional<Failure> {
    Case none = c;
    none.batched.mask_dims.clear();
    none.mask.reset();
    return detail::check_batched(s, c, {{"attention without the mask (the mask ignored)", none}}, "mask_broadcast");
  };
  return p;
}

}  // namespace attn::prop

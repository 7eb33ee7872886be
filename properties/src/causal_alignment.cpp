// Section 32.2.4 (the causal mask) with T_q != T_v: top-left, query i sees
// keys j <= i (PyTorch's is_causal); bottom-right, j <= i + T_v - T_q, the
// last query sees every key (flash-attention from 2.1, decoding with a key
// cache). The cases ask for one or the other with T_q != T_v (bottom-right
// only with T_q < T_v: with T_q > T_v its first rows have no key, which
// fully_forbidden_refused checks), and each head is held to the oracle.
#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "batched_check.hpp"

namespace attn::prop {

Property causal_alignment() {
  Property p;
  p.id = "causal_alignment";
  p.hint = {"the causal mask is not aligned as asked",
            "With T_q != T_v, top_left forbids keys j > i and bottom_right forbids j > i + T_v "
            "- T_q (the last query sees every key); use the alignment the call asks for.",
            "section 32.2.4; FlashAttention 2.1 (bottom-right alignment)"};
  p.title = "causal with T_q != T_v forbids keys j > i (top_left) or j > i + T_v - T_q "
            "(bottom_right), as asked";
  p.source = "section 32.2.4 (the causal mask); flash-attention 2.1 (bottom-right alignment)";
  p.op = Operation::batched_attention;
  p.generator = [](const GenConfig& cfg) {
    return gen_batched_case(cfg, BatchedFocus::causal_alignment);
  };
  p.check = [](Subject& s, const Case& c) -> std::optional<Failure> {
    Case other = c;
    other.batched.bottom_right = !c.batched.bottom_right;
    const std::string asked = c.batched.bottom_right ? "bottom_right" : "top_left";
    const std::string wrong = c.batched.bottom_right ? "top_left" : "bottom_right";
    Case none = c;
    none.batched.causal = false;
    return detail::check_batched(
        s, c,
        {{"the " + wrong + " causal mask, where " + asked + " was asked", other},
         {"no causal mask at all", none}}, "causal_alignment");
  };
  return p;
}

}  // namespace attn::prop

// The backward pass from its definition (Dao et al. 2022, "FlashAttention",
// Appendix B.2): every entry of dQ, dK and dV agrees with the 50-digit
// oracle (exact_attention_backward) within the a-priori bound for the
// subject's declared precision (reference/TOLERANCE.md, "The backward pass",
// (B1)-(B6)). The rows of keys forbidden to every query are
// backward_exact_zeros' to judge.
#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "backward_check.hpp"

namespace attn::prop {

Property backward_oracle_agreement() {
  Property p;
  p.id = "backward_oracle_agreement";
  p.hint = {"the gradients differ from the definition beyond rounding",
            "Recompute P from the logits (the forward's mask, -inf before the softmax), then "
            "dV = P^T dO, dP = dO V^T, D = rowsum(dO o O), dS = P o (dP - D), dQ = scale dS K "
            "and dK = scale dS^T Q; the worst entry shows which gradient departs.",
            "the chain rule through O = P V and the softmax; FlashAttention-2, Algorithm 2"};
  p.title = "dQ, dK and dV agree with the high-precision oracle within the error bound";
  p.source = "the chain rule through O = P V and the softmax (FlashAttention, Dao et al. 2022, "
             "Appendix B.2); reference/TOLERANCE.md, \"The backward pass\"";
  p.op = Operation::attention_backward;
  p.edge_cases = {.long_rows = true};  // rows over several tiles (edge_cases.hpp)
  p.generator = [](const GenConfig& cfg) { return gen_case(cfg, MaskPolicy::any); };
  p.check = [](Subject& s, const Case& c) -> std::optional<Failure> {
    const Outcome o = s.run(c);
    if (auto f = detail::require_gradients(o, c)) return f;
    const detail::ExpectedGradients e = detail::expected_gradients(c, s.precision());
    return detail::compare_gradients(c, o, e, [&](const char* name, double ratio, Index entries) {
      detail::record_backward_ratio(s, c, name, ratio, entries);
    });
  };
  return p;
}

}  // namespace attn::prop

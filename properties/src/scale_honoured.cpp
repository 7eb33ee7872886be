// An explicit softmax scale (PyTorch's scaled_dot_product_attention `scale`,
// flash-attention's `softmax_scale`): the logits are scale Q K^T instead of
// Q K^T / sqrt(d_k) (Lemma 1's default). The cases give a dyadic scale that
// is never 1/sqrt(d_k), and each head is held to the oracle with that scale.
#include <cmath>

#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "batched_check.hpp"

namespace attn::prop {

Property scale_honoured() {
  Property p;
  p.id = "scale_honoured";
  p.hint = {"an explicit scale is not used",
            "When a scale is given, the logits are scale Q K^T, in place of the default "
            "1/sqrt(d_k), not as well as it.",
            "Lemma 1, section 32.2.3; PyTorch scaled_dot_product_attention(scale=)"};
  p.title = "an explicit scale replaces 1/sqrt(d_k): the logits are scale Q K^T";
  p.source = "Lemma 1, section 32.2.3 (the default 1/sqrt(d_k)); PyTorch "
             "scaled_dot_product_attention(scale=)";
  p.op = Operation::batched_attention;
  p.generator = [](const GenConfig& cfg) {
    return gen_batched_case(cfg, BatchedFocus::custom_scale);
  };
  p.check = [](Subject& s, const Case& c) -> std::optional<Failure> {
    Case ignored = c;
    ignored.batched.scale.reset();
    Case twice = c;
    const double d_k = double(c.batched.Q[3]);
    if (c.batched.scale) twice.batched.scale = *c.batched.scale / std::sqrt(d_k);
    return detail::check_batched(
        s, c,
        {{"the default scale 1/sqrt(d_k): the given scale was ignored", ignored},
         {"the given scale and 1/sqrt(d_k) both applied", twice}}, "scale_honoured");
  };
  return p;
}

}  // namespace attn::prop

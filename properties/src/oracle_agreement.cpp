// Definition (section 32.2.2): every entry of A and O agrees with the
// 50-digit oracle within the a-priori error bound for the subject's
// declared precision (reference/TOLERANCE.md).
#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "check_util.hpp"

namespace attn::prop {

Property oracle_agreement(Operation op) {
  Property p;
  p.id = "oracle_agreement";
  p.title = op == Operation::attention_tiled
                ? "O and logsumexp agree with the high-precision oracle within the error bound"
                : "A and O agree with the high-precision oracle within the error bound";
  p.source = "Definition, section 32.2.2; reference/TOLERANCE.md";
  p.op = op;
  p.generator = [](const GenConfig& cfg) { return gen_case(cfg, MaskPolicy::any); };
  p.check = [](Subject& s, const Case& c) -> std::optional<Failure> {
    const Outcome o = s.run(c);
    if (auto f = detail::require_answer(o, c)) return f;
    const detail::Expected e = detail::expected_for(c, s.precision());
    if (c.op != Operation::attention_tiled)
      if (auto f = detail::compare_with_bound("A", o.A, e.A, e.bound_A)) return detail::with_outcome(f, o);
    if (takes_qkv(c.op))
      if (auto f = detail::compare_with_bound("O", o.O, e.O, e.bound_O)) return detail::with_outcome(f, o);
    if (c.op == Operation::attention_tiled)
      if (auto f = detail::compare_with_bound("logsumexp", o.logsumexp, e.logsumexp, e.bound_logsumexp))
        return detail::with_outcome(f, o);
    return std::nullopt;
  };
  return p;
}

}  // namespace attn::prop

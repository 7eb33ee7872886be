// Definition (section 32.2.2): every entry of A and O agrees with the
// 50-digit oracle within the a-priori error bound for the subject's
// declared precision (reference/TOLERANCE.md).
#include "attn/prop/bound_stats.hpp"
#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "check_util.hpp"

namespace attn::prop {

Property oracle_agreement(Operation op) {
  Property p;
  p.id = "oracle_agreement";
  p.edge_cases = {.lowest_logits = true, .long_rows = true, .non_finite = true};
  // The softmax operations are given S: no Q K^T to scale, no O.
  p.hint = {"the values differ from the definition beyond rounding",
            takes_logits(op)
                ? "Compare with the definition step by step on the counterexample: the "
                  "forbidden keys (mask true or S_ij = -inf) get weight 0, each row's maximum is "
                  "taken over its allowed keys and subtracted, exp, then divide by the row's sum, "
                  "all in float64. The worst entry shows where it goes wrong."
                : "Compare with the definition step by step on the counterexample: S = Q K^T / "
                  "sqrt(d_k), forbidden logits -inf, softmax of each row with the row maximum "
                  "subtracted, O = A V, all in float64. The worst entry shows where it goes "
                  "wrong.",
            "definition, section 32.2.2; reference/TOLERANCE.md"};
  p.title = op == Operation::attention_tiled
                ? "O and logsumexp agree with the high-precision oracle within the error bound"
            : op == Operation::multi_head_attention
                ? "O agrees with the high-precision oracle within the error bound"
            : op == Operation::batched_attention
                ? "O[n, h] agrees with the oracle's attention of that head within the per-head "
                  "error bound"
                : "A and O agree with the high-precision oracle within the error bound";
  p.source = op == Operation::multi_head_attention
                 ? "Definition, sections 32.2.2 and 32.2.5; reference/TOLERANCE.md"
             : op == Operation::batched_attention
                 ? "Definition, section 32.2.2, per (n, h); Ainslie et al. 2023 (GQA); "
                   "reference/TOLERANCE.md"
                 : "Definition, section 32.2.2; reference/TOLERANCE.md";
  p.op = op;
  p.generator = [](const GenConfig& cfg) { return gen_case(cfg, MaskPolicy::any); };
  p.check = [](Subject& s, const Case& c) -> std::optional<Failure> {
    const Outcome o = s.run(c);
    // A NaN or Inf input (a fixed edge case): refused, or reaching the answer.
    if (auto what = detail::non_finite_input(c)) return detail::check_non_finite_answer(o, *what);
    // Record how close each output comes to its bound (bound_stats.hpp).
    return detail::check_answer(s, c, o, [&](const char* name, double ratio, Index entries) {
      std::string where = std::string(name) + " of " + operation_name(c.op) + " in " + s.precision().name;
      for (const auto& t : c.tags) where += "; " + t;
      record_bound_ratio(ratio, entries, where);
    });
  };
  return p;
}

}  // namespace attn::prop

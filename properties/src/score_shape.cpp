// Lemma 1 (section 32.2.3): S = Q K^T is T_q x T_v, so A is T_q x T_v and
// O = A V is T_q x d_v, for every T_q, T_v (equal or not), d_k and d_v.
// It owns answering for attention (detail::answering_owner): a refused valid
// input and an answer of the wrong shape are charged here alone, and its
// cases are those of the value properties (any valid case; edge_cases.hpp).
#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "check_util.hpp"

namespace attn::prop {

Property score_shape() {
  Property p;
  p.id = "score_shape";
  p.edge_cases = {.lowest_logits = true, .long_rows = true};
  p.hint = {"the results have the wrong shape",
            "O must be T_q x d_v and A must be T_q x T_v: the scores are Q K^T (queries in "
            "rows, keys in columns), scaled by 1/sqrt(d_k), and O = A V. Test with T_q != T_v "
            "and d_k != d_v, where a transposed product cannot hide.",
            "Lemma 1, section 32.2.3"};
  p.title = "A is T_q x T_v and O is T_q x d_v, also when T_q != T_v";
  p.source = "Lemma 1, section 32.2.3";
  p.op = Operation::attention;
  p.generator = [](const GenConfig& cfg) { return gen_case(cfg, MaskPolicy::any); };
  p.check = [](Subject& s, const Case& c) { return detail::require_answer(s.run(c), c, s); };
  return p;
}

}  // namespace attn::prop

// Lemma 1 and batched.hpp: inputs whose shapes do not fit have no answer and
// must be refused: H_kv not dividing H (the query heads cannot be shared out
// in equal groups), d_k of K not Q's, a mask that does not broadcast against
// (N, H, T_q, T_v), K and V of another batch size, V with another T_v than
// K. The refusal must come from the shapes: the same inputs made to fit
// (fitted_case) are answered correctly.
#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "batched_check.hpp"

namespace attn::prop {

Property shapes_refused(std::string expected_error) {
  Property p;
  p.id = "shapes_refused";
  p.kind = PropertyKind::refusal;
  p.hint = {"shapes that do not fit are not refused",
            "Check that H_kv divides H, that Q and K share d_k, that K and V share T_v and N, "
            "and that the mask broadcasts; raise an error naming the mismatch.",
            "Lemma 1, section 32.2.3; Ainslie et al. 2023 (GQA)"};
  p.title = "shapes that do not fit (H_kv not dividing H, d_k, the mask's broadcast, N, T_v) "
            "are refused";
  p.source = "Lemma 1, section 32.2.3; Ainslie et al. 2023 (GQA), section 2";
  p.op = Operation::batched_attention;
  p.generator = [](const GenConfig& cfg) { return gen_batched_shape_mismatch_case(cfg); };
  p.check = [expected_error](Subject& s, const Case& c) -> std::optional<Failure> {
    const Outcome o = s.run(c);
    const std::string why = batched_shape_problem(c).value_or("shapes that do not fit");
    return detail::require_specific_refusal(s, c, o, expected_error,
                                            "inputs that do not fit (" + why + ")",
                                            detail::fitted_case(c),
                                            "the same inputs made to fit");
  };
  return p;
}

}  // namespace attn::prop

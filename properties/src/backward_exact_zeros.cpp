// Lemma 2 differentiated: a key that every query is forbidden has weight
// exactly 0 in every row (P_ij = 0), so dS_ij = P_ij (dP_ij - D_i) = 0 and
// its rows dK_j = c sum_i dS_ij Q_i and dV_j = sum_i P_ij dO_i are exactly
// 0.0: no rounding can make them anything else (a forbidden weight never
// enters the sums, or enters as 0 times a finite number). A case whose mask
// leaves no such key gets one: a key chosen by the property's knob is
// forbidden to every query when every row keeps another allowed key.
#include <cmath>
#include <sstream>

#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "backward_check.hpp"

namespace attn::prop {

Property backward_exact_zeros() {
  Property p;
  p.id = "backward_exact_zeros";
  p.hint = {"a key no query may attend to gets a gradient",
            "A forbidden weight is exactly 0, so its dS entry P o (dP - D) is exactly 0: a key "
            "forbidden to every query must get dK and dV rows of exactly 0. Mask the "
            "recomputed logits with -inf, as the forward does, not a finite fill.",
            "Lemma 2, section 32.2.4, differentiated"};
  p.title = "a key forbidden to every query gets dK and dV rows of exactly 0";
  p.source = "Lemma 2 (a forbidden weight is exactly 0), differentiated: dS = P o (dP - D)";
  p.op = Operation::attention_backward;
  p.generator = [](const GenConfig& cfg) {
    return with_params(gen_case(cfg, MaskPolicy::masked), [](const Case&) { return std::size_t(1); },
                       integer_values(100));
  };
  p.check = [](Subject& s, const Case& generated) -> std::optional<Failure> {
    Case c = generated;
    const Index T_q = c.Q.rows(), T_v = c.K.rows();
    if (!c.mask) c.mask = Mask::Constant(T_q, T_v, false);
    if (detail::keys_forbidden_to_all(c).empty() && T_q > 0) {
      // Forbid key j to every query if every row keeps another allowed key.
      const Index start = Index(std::abs(c.params.empty() ? 0.0 : c.params[0])) % T_v;
      for (Index k = 0; k < T_v; ++k) {
        const Index j = (start + k) % T_v;
        bool others = true;
        for (Index i = 0; i < T_q && others; ++i) {
          bool any = false;
          for (Index l = 0; l < T_v && !any; ++l) any = l != j && !(*c.mask)(i, l);
          others = any;
        }
        if (others) {
          c.mask->col(j).setConstant(true);
          break;
        }
      }
    }
    const std::vector<Index> keys = detail::keys_forbidden_to_all(c);
    if (keys.empty()) return std::nullopt;  // T_v = 1, or one allowed key per row: none to forbid
    const Outcome o = s.run(c);
    if (auto f = detail::require_gradients(o, c)) {
      f->shown = c;
      return f;
    }
    for (Index j : keys)
      for (int k = 1; k < 3; ++k) {
        const DMatrix& G = detail::gradient(o, k);
        for (Index l = 0; l < G.cols(); ++l) {
          if (G(j, l) == 0.0) continue;
          Failure f;
          std::ostringstream os;
          os.precision(17);
          os << "key " << j << " is forbidden to every query, yet " << detail::kGradientNames[k]
             << "(" << j << ", " << l << ") = " << G(j, l) << ", not exactly 0";
          f.summary = os.str();
          f.worst = WorstEntry{detail::kGradientNames[k], j, l, 0.0, G(j, l), std::abs(G(j, l)), 0.0};
          f.outcome = o;
          f.shown = c;
          return f;
        }
      }
    return std::nullopt;
  };
  return p;
}

}  // namespace attn::prop

// Lemma 2 (section 32.2.4): with -inf at the forbidden logits, the forbidden
// weights are exactly zero, bit for bit, and not merely small. A NaN or Inf
// there (an overflow) is oracle_agreement's to charge, not this property's
// (one fault, one charge: properties/README.md); a case whose forbidden
// weights are all NaN or Inf is left to it. A row of A that is 0 everywhere
// (code that computes nothing and answers zeros) says nothing of the mask:
// its zeros are not judged, the row is row_stochastic's.
#include <cmath>
#include <sstream>

#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "check_util.hpp"

namespace attn::prop {

Property exact_zeros(Operation op) {
  Property p;
  p.id = "exact_zeros";
  p.edge_cases = {.lowest_logits = true};
  p.hint = {"forbidden weights are small but not exactly 0",
            "Set forbidden logits to -inf before the softmax: exp(-inf) is exactly 0.0, bit "
            "for bit. A large finite negative (-1e9), an epsilon, or multiplying by the mask "
            "after the softmax does not give exact zeros in every case.",
            "Lemma 2, section 32.2.4"};
  p.title = "forbidden weights are exactly 0.0";
  p.source = "Lemma 2, section 32.2.4";
  p.op = op;
  p.needs_weights = true;
  p.generator = [](const GenConfig& cfg) { return gen_case(cfg, MaskPolicy::masked); };
  p.check = [](Subject& s, const Case& c) -> std::optional<Failure> {
    const Outcome o = s.run(c);
    const detail::Judged judged = detail::judge_parts(o, c, s, "exact_zeros", detail::Reads::weights);
    if (judged.stop()) return judged.failure;
    Index finite = 0, non_finite = 0, weightless = 0;
    for (Index i = 0; i < o.A.rows(); ++i) {
      bool weighted = false;  // a NaN counts as weight
      for (Index j = 0; j < o.A.cols() && !weighted; ++j) weighted = !(o.A(i, j) == 0.0);
      if (!weighted) {
        ++weightless;
        continue;
      }
      for (Index j = 0; j < o.A.cols(); ++j) {
        if (!detail::forbidden(c, i, j)) continue;
        if (!std::isfinite(o.A(i, j))) {
          ++non_finite;
          continue;
        }
        ++finite;
        if (!(o.A(i, j) == 0.0)) {
          Failure f;
          f.outcome = o;
          f.marked_row = i;
          std::ostringstream os;
          os << "A(" << i << ", " << j << ") = " << o.A(i, j)
             << " but key " << j << " is forbidden for query " << i << "; it must be exactly 0";
          f.summary = os.str();
          f.worst = WorstEntry{"A", i, j, 0.0, o.A(i, j), std::abs(o.A(i, j)), 0.0};
          return f;
        }
      }
    }
    // Nothing judged here: a NaN or Inf is oracle_agreement's to charge, so a
    // case whose forbidden weights are all non-finite, or which has none and
    // a non-finite answer, is left to it (an answer of NaN everywhere must
    // not pass by such cases).
    if (finite == 0 && (non_finite > 0 || !o.A.allFinite()))
      detail::leave_to("oracle_agreement", "a non-finite answer",
                       non_finite > 0 ? "every forbidden weight is NaN or Inf"
                                      : "a weight is NaN or Inf");
    else if (finite == 0 && weightless > 0)
      detail::leave_to("row_stochastic", "rows of A that are 0 everywhere",
                       "every weight of " + std::to_string(weightless) +
                           (weightless == 1 ? " row" : " rows") +
                           " is 0, which says nothing of the mask");
    return std::nullopt;
  };
  return p;
}

}  // namespace attn::prop

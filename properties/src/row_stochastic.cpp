// F1 (32.2.8, solution 32.2.9): every A_ij >= 0 and every row of A sums to 1.
// The row sum of the computed A is evaluated exactly and compared with the
// rounding bound of the row ("Row sums" in reference/TOLERANCE.md): the
// larger of a normalised row's, (2u + gamma_{T_v-1}) / (1 - gamma_{T_v-1}),
// and a logsumexp-form row's, whose weights each carry their own error.
// One fault, one charge (properties/README.md): a row holding a NaN or Inf is
// oracle_agreement's, a row holding a nonzero forbidden weight exact_zeros';
// such a row's sum is not judged here (a case with no row left is left to
// them, detail::leave_to). The judgment of a row is detail::judge_row_stochastic,
// which masked_after_softmax_rows shares.
#include <charconv>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "check_util.hpp"

namespace attn::prop {

Property row_stochastic(Operation op) {
  Property p;
  p.id = "row_stochastic";
  p.edge_cases = {.lowest_logits = true, .long_rows = true};
  p.hint = {"a row of A is not a probability distribution",
            "Every row of A is a softmax over the allowed keys: non-negative and summing to 1. "
            "Normalise each row (over the keys, the last axis) after setting forbidden logits "
            "to -inf.",
            "F1, sections 32.2.8-32.2.9; Lemma 2"};
  p.title = "weights are non-negative and every row of A sums to 1";
  p.source = "F1, sections 32.2.8-32.2.9; Lemma 2";
  p.op = op;
  p.needs_weights = true;
  p.generator = [](const GenConfig& cfg) { return gen_case(cfg, MaskPolicy::any); };
  p.check = [](Subject& s, const Case& c) -> std::optional<Failure> {
    const Outcome o = s.run(c);
    const detail::Judged judged = detail::judge_parts(o, c, s, "row_stochastic", detail::Reads::weights);
    if (judged.stop()) return judged.failure;
    const std::vector<double> bounds = detail::expected_for(c, s.precision()).bound_row_sum;
    Index rows_judged = 0;
    bool non_finite = false;
    for (Index i = 0; i < o.A.rows(); ++i) {
      const double bound = bounds.at(std::size_t(i));
      const detail::RowJudgment r = detail::judge_row_stochastic(c, o.A, i, bound);
      non_finite = non_finite || r.kind == detail::RowJudgment::Kind::non_finite;
      if (!r.judged()) continue;  // the row is another property's
      ++rows_judged;
      if (r.kind == detail::RowJudgment::Kind::negative_weight) {
        Failure f;
        f.outcome = o;
        f.marked_row = i;
        std::ostringstream os;
        os << "A(" << i << ", " << r.column << ") = " << o.A(i, r.column)
           << " is not a weight (must be >= 0)";
        f.summary = os.str();
        return f;
      }
      if (r.kind == detail::RowJudgment::Kind::sum_off) {
        Failure f;
        f.outcome = o;
        f.marked_row = i;
        std::ostringstream os;
        // Every digit that matters: "sums to 0.99999999999 (1 - 1e-11)", never "sums to 1, not 1".
        const double total = static_cast<double>(r.sum);
        char text[40];
        const auto end = std::to_chars(text, text + sizeof text, total).ptr;
        os << "row " << i << " of A sums to " << std::string(text, end) << std::setprecision(3)
           << " (1 " << (r.sum < 1 ? "- " : "+ ") << r.error << "), not 1 within the bound " << bound;
        f.summary = os.str();
        f.worst = WorstEntry{"row sum of A", i, -1, 1.0, total, r.error, bound};
        return f;
      }
    }
    if (rows_judged == 0 && o.A.rows() > 0) {
      if (non_finite)
        detail::leave_to("oracle_agreement", "a non-finite answer", "every row holds a NaN or Inf");
      else
        detail::leave_to("exact_zeros", "a nonzero forbidden weight",
                         "every row holds a nonzero forbidden weight");
    }
    return std::nullopt;
  };
  return p;
}

}  // namespace attn::prop

// The softmax's invariance to a shift of its row (section 32.2.4),
// differentiated: softmax(s + t 1) = softmax(s) for every t, so the
// derivative of the loss along 1 vanishes, sum_j dS_ij = 0 for every query
// row i (with D_i = sum_j P_ij dP_ij: sum_j P_ij (dP_ij - D_i) = D_i - D_i).
// What a subject returns shows it through the keys' gradients: adding one
// vector u to every key shifts row i of the logits by c Q_i . u, so
//   sum_j dK_j = c sum_i (sum_j dS_ij) Q_i = 0   (a d_k-vector),
// exactly, for every input. A backward that drops D_i (dS = P o dP) or
// subtracts it with the wrong weights breaks it. The bound
// (reference/TOLERANCE.md, "The backward pass", (B7)) is the triangle
// inequality over the per-entry bound of dK, plus the 50-digit sum's own
// rounding.
#include <cmath>
#include <sstream>

#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "backward_check.hpp"

namespace attn::prop {

Property backward_ds_rows_sum_to_zero() {
  Property p;
  p.id = "backward_ds_rows_sum_to_zero";
  p.hint = {"the keys' gradients do not sum to zero",
            "The softmax does not change when a constant is added to a row of logits, so each "
            "row of dS sums to 0 and so do the rows of dK: the D = rowsum(dO o O) term must be "
            "subtracted from dP in every row.",
            "shift invariance, section 32.2.4, differentiated"};
  p.title = "each row of dS sums to 0: the keys' gradients dK sum to the zero vector";
  p.source = "shift invariance, section 32.2.4, differentiated; reference/TOLERANCE.md, (B7)";
  p.op = Operation::attention_backward;
  p.edge_cases = {.long_rows = true};  // rows over several tiles (edge_cases.hpp)
  p.generator = [](const GenConfig& cfg) { return gen_case(cfg, MaskPolicy::any); };
  p.check = [](Subject& s, const Case& c) -> std::optional<Failure> {
    const Outcome o = s.run(c);
    if (auto f = detail::require_gradients(o, c)) return f;
    const detail::ExpectedGradients e = detail::expected_gradients(c, s.precision());
    std::vector<bool> zero_key(std::size_t(c.K.rows()), false);
    for (Index j : detail::keys_forbidden_to_all(c)) zero_key[std::size_t(j)] = true;
    std::optional<WorstEntry> worst;
    double worst_ratio = -1;
    for (Index l = 0; l < o.dK.cols(); ++l) {
      ref::Real sum = 0, magnitude = 0;
      double bound = 0;
      for (Index j = 0; j < o.dK.rows(); ++j) {
        if (zero_key[std::size_t(j)]) continue;  // exactly 0: backward_exact_zeros judges them
        sum += ref::Real(o.dK(j, l));
        magnitude += abs(ref::Real(o.dK(j, l)));
        bound += e.bound.dK(j, l);
      }
      // (B7): the sum of the bounds, and the 50-digit sum's rounding (at
      // most T_v terms of relative 1e-49 each, taken as 1e-45 of the magnitude).
      bound += 1e-45 * static_cast<double>(magnitude);
      const double actual = static_cast<double>(sum);
      const double err = std::isfinite(actual) ? std::abs(actual) : std::numeric_limits<double>::infinity();
      const double ratio = bound > 0 ? err / bound : (err > 0 ? std::numeric_limits<double>::infinity() : 0);
      if (std::isnan(actual) || ratio > worst_ratio) {
        worst_ratio = std::isnan(actual) ? std::numeric_limits<double>::infinity() : ratio;
        worst = WorstEntry{"sum over keys of dK", -1, l, 0.0, actual, err, bound};
      }
    }
    detail::record_backward_ratio(s, c, "the sum over keys of dK", worst_ratio, o.dK.cols());
    if (!worst || worst_ratio <= 1) return std::nullopt;
    Failure f;
    std::ostringstream os;
    os.precision(3);
    os << "the rows of dK sum to " << worst->actual << " in column " << worst->col
       << ", not 0 within the bound " << worst->bound
       << ": some row of dS = P o (dP - D) does not sum to 0 (is D_i = rowsum(dO o O) "
          "subtracted?)";
    f.summary = os.str();
    f.worst = worst;
    f.outcome = o;
    return f;
  };
  return p;
}

}  // namespace attn::prop

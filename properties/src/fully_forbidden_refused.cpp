// Section 32.2.4: if every key of a row is forbidden, the maximum over the
// allowed entries is -inf and the softmax is undefined (Lemma 2 excludes
// this case); it must be reported as an error, not as NaN, zeros or a
// uniform average.
#include <cmath>
#include <sstream>

#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "check_util.hpp"

namespace attn::prop {

Property fully_forbidden_refused(Operation op, std::string expected_error) {
  Property p;
  p.id = "fully_forbidden_refused";
  p.title = "a query row with every key forbidden is refused with an error";
  p.source = "Lemma 2 and section 32.2.4";
  p.op = op;
  p.generator = [](const GenConfig& cfg) { return gen_case(cfg, MaskPolicy::fully_forbidden); };
  p.check = [expected_error](Subject& s, const Case& c) -> std::optional<Failure> {
    const Outcome o = s.run(c);
    Index row = -1;
    for (Index i = 0; i < detail::T_q(c) && row < 0; ++i) {
      bool all = true;
      for (Index j = 0; j < detail::T_v(c); ++j)
        all = all && detail::forbidden(c, i, j);
      if (all) row = i;
    }
    if (o.kind == Outcome::Kind::refusal) {
      // The refusal must come from the fully forbidden row: the same case
      // with that row's keys allowed has an answer. (A submission that
      // refuses everything, a skeleton, earns nothing here.)
      Case allowed = c;
      if (row >= 0) {
        if (allowed.mask) allowed.mask->row(row).setConstant(false);
        if (c.op == Operation::softmax_rows || c.op == Operation::masked_softmax)
          for (Index j = 0; j < allowed.S.cols(); ++j)
            if (allowed.S(row, j) == -HUGE_VAL) allowed.S(row, j) = 0.0;
      }
      auto f = detail::require_specific_refusal(
          s, o, expected_error, "row " + std::to_string(row) + " with every key forbidden",
          allowed, "the same case with that row's keys allowed");
      if (f) f->marked_row = row;
      return f;
    }
    Failure f;
    f.outcome = o;
    f.marked_row = row;
    if (o.kind == Outcome::Kind::fault) {
      // What happened, as the fault says it (crashed, timed out, a malformed reply...).
      f.summary = "did not refuse row " + std::to_string(row) + ": " + o.message;
    } else {
      std::ostringstream os;
      os << "every key is forbidden for row " << row << ", yet it returned ";
      const bool weights = o.A.rows() > row && row >= 0;
      const DMatrix& shown = weights ? o.A : o.O;
      os << (weights ? "weights" : "outputs");
      if (shown.rows() > row && row >= 0) {
        os << " [";
        for (Index j = 0; j < shown.cols(); ++j) os << (j ? ", " : "") << shown(row, j);
        os << "]";
      }
      os << " instead of raising an error";
      f.summary = os.str();
    }
    return f;
  };
  return p;
}

}  // namespace attn::prop

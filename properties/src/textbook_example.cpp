// Sections 32.2.6-32.2.7: the lab's two-token example, without a mask and
// with the causal mask, against the printed values at the text's 1e-4.
#include <cmath>
#include <sstream>

#include "attn/prop/catalog.hpp"
#include "attn/ref/textbook.hpp"
#include "check_util.hpp"

namespace attn::prop {

namespace {

std::optional<Failure> compare_printed(const std::string& name, const DMatrix& actual,
                                       const DMatrix& printed) {
  for (Index i = 0; i < printed.rows(); ++i)
    for (Index j = 0; j < printed.cols(); ++j) {
      const double err = std::abs(actual(i, j) - printed(i, j));
      if (!(err <= ref::textbook::kPrintedTolerance)) {
        Failure f;
        std::ostringstream os;
        os << name << "(" << i << ", " << j << ") = " << actual(i, j) << " but the text prints "
           << printed(i, j) << " (32.2.6)";
        f.summary = os.str();
        f.worst = WorstEntry{name, i, j, printed(i, j), actual(i, j), err,
                             ref::textbook::kPrintedTolerance};
        f.marked_row = i;
        return f;
      }
    }
  return std::nullopt;
}

}  // namespace

Property textbook_example(bool within_bound) {
  Property p;
  p.id = "textbook_example";
  p.hint = {"the text's worked example comes out differently",
            "Redo the two-token example by hand: S = Q K^T / sqrt(2), the softmax of each row, "
            "then O = A V; with the causal mask, key 1 is forbidden for query 0 before the "
            "softmax, so A(0,0) = 1.",
            "section 32.2.6, solution 32.2.7"};
  p.title = "the two-token example of 32.2.6 gives the printed A, O, Am and Om";
  p.source = "sections 32.2.6-32.2.7";
  p.op = Operation::attention;
  {
    const ref::textbook::TwoToken ex;
    Case plain;
    plain.Q = ex.Q;
    plain.K = ex.K;
    plain.V = ex.V;
    plain.tags = {"textbook: 32.2.6 without a mask"};
    Case masked = plain;
    masked.mask = ex.causal;
    masked.tags = {"textbook: 32.2.6 with the causal mask"};
    p.fixed_cases = {plain, masked};
  }
  if (within_bound) {
    // A kernel's check: the same inputs, compared with the oracle within the
    // bound for the subject's declared precision (the printed 4 decimals are
    // a student's yardstick, far looser than a kernel's float64 rounding and
    // too tight for bfloat16's).
    p.title = "the two-token example of 32.2.6 agrees with the oracle within the error bound";
    p.source = "sections 32.2.6-32.2.7; reference/TOLERANCE.md";
    p.check = [](Subject& s, const Case& c) -> std::optional<Failure> {
      const Outcome o = s.run(c);
      return detail::check_answer(s, c, o, {}, "textbook_example");
    };
    return p;
  }
  p.check = [](Subject& s, const Case& c) -> std::optional<Failure> {
    const ref::textbook::TwoToken ex;
    const Outcome o = s.run(c);
    // The well-shaped parts: a refusal or a wrong shape is score_shape's.
    const detail::Judged judged = detail::judge_parts(o, c, s, "textbook_example");
    if (judged.stop()) return judged.failure;
    const bool masked = c.mask.has_value();
    if (judged.parts.A)
      if (auto f = compare_printed(masked ? "Am" : "A", o.A, masked ? ex.A_masked : ex.A))
        return detail::with_outcome(f, o);
    if (judged.parts.O)
      if (auto f = compare_printed(masked ? "Om" : "O", o.O, masked ? ex.O_masked : ex.O))
        return detail::with_outcome(f, o);
    return std::nullopt;
  };
  return p;
}

}  // namespace attn::prop

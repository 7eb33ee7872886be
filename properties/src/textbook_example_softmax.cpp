// textbook_example for the softmax operations: the text's worked numbers
// for F1 and F2, held to its printed weights at its tolerance 1e-4.
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "attn/prop/catalog.hpp"
#include "attn/ref/textbook.hpp"

namespace attn::prop {
namespace {

namespace textbook = attn::ref::textbook;

/// A failure unless `o` holds weights of the shape of S.
std::optional<Failure> require_weights(const Outcome& o, const Case& c) {
  Failure f;
  f.outcome = o;
  switch (o.kind) {
    case Outcome::Kind::refusal:
      f.summary = "refused the text's example with " + o.error_type + ": " + o.message;
      return f;
    case Outcome::Kind::fault:
      f.summary = "fault on the text's example: " + o.message;
      return f;
    case Outcome::Kind::result:
      break;
  }
  if (o.A.rows() != c.S.rows() || o.A.cols() != c.S.cols()) {
    std::ostringstream os;
    os << "A is " << o.A.rows() << " x " << o.A.cols() << ", expected the shape of S, "
       << c.S.rows() << " x " << c.S.cols();
    f.summary = os.str();
    return f;
  }
  return std::nullopt;
}

/// The check shared by both examples: A against `printed` at 1e-4.
std::optional<Failure> compare_with_printed(const Outcome& o, const Case& c,
                                            const DMatrix& printed, const char* where) {
  if (auto f = require_weights(o, c)) return f;
  for (Eigen::Index i = 0; i < printed.rows(); ++i)
    for (Eigen::Index j = 0; j < printed.cols(); ++j) {
      const double err = std::abs(o.A(i, j) - printed(i, j));
      if (!(err <= textbook::kPrintedTolerance)) {  // NaN fails too
        Failure f;
        f.outcome = o;
        f.marked_row = i;
        std::ostringstream os;
        os << "A(" << i << ", " << j << ") = " << o.A(i, j) << " but the text prints "
           << printed(i, j) << " (" << where << ")";
        f.summary = os.str();
        f.worst = WorstEntry{"A", i, j, printed(i, j), o.A(i, j), err,
                                         textbook::kPrintedTolerance};
        return f;
      }
    }
  return std::nullopt;
}

Property f1_textbook_example() {
  Property p;
  p.id = "textbook_example";
  p.title = "the logits of the two-token example give the printed weights";
  p.source = "sections 32.2.6 and 32.2.8 (F1)";
  p.hint = {"the text's worked example comes out differently",
            "Redo it by hand: the logits S = (1/sqrt 2) [[1, 2], [1, 0]] of the two-token "
            "example give A = [[0.3302, 0.6698], [0.6698, 0.3302]]: exp of each entry minus its "
            "row maximum, divided by the row's sum.",
            "section 32.2.6; exercise F1, 32.2.8"};
  p.op = Operation::softmax_rows;
  p.needs_weights = true;
  Case c;
  c.op = Operation::softmax_rows;
  const double r = 1.0 / std::sqrt(2.0);
  c.S = textbook::rows({{r, 2 * r}, {r, 0.0}});  // Q K^T / sqrt(2) of 32.2.6
  c.tags = {"textbook: 32.2.6 logits"};
  p.fixed_cases = {c};
  p.check = [](Subject& s, const Case& c) {
    return compare_with_printed(s.run(c), c, textbook::TwoToken{}.A, "32.2.6");
  };
  return p;
}

Property f2_textbook_example() {
  Property p;
  p.id = "textbook_example";
  p.title = "F2's logits give the printed masked softmax";
  p.source = "sections 32.2.8 (F2) and 32.2.9";
  p.hint = {"the text's worked example comes out differently",
            "Redo task 2 of F2 by hand: S = [[0, 2, -inf], [1, -1, 0]] gives A = [[0.1192, "
            "0.8808, 0], [0.6652, 0.0900, 0.2447]], the softmax of each row over its allowed "
            "keys; with S[0, 2] = 3 forbidden by the mask instead, A must be the same.",
            "section 32.2.8 (F2), solution 32.2.9"};
  p.op = Operation::masked_softmax;
  p.needs_weights = true;
  const textbook::F2 f2;
  Case with_inf;
  with_inf.op = Operation::masked_softmax;
  with_inf.S = f2.S;
  with_inf.tags = {"textbook: F2, -inf in S, no mask"};
  Case with_mask = with_inf;
  with_mask.S(0, 2) = 3.0;  // any finite logit: the mask must make it irrelevant
  attn::Mask m = attn::Mask::Constant(2, 3, false);
  m(0, 2) = true;
  with_mask.mask = m;
  with_mask.tags = {"textbook: F2, the same key forbidden by the mask"};
  p.fixed_cases = {with_inf, with_mask};
  p.check = [](Subject& s, const Case& c) {
    return compare_with_printed(s.run(c), c, textbook::F2{}.A, "F2, solution 32.2.9");
  };
  return p;
}

}  // namespace

Property softmax_textbook_example(Operation op) {
  if (op == Operation::softmax_rows) return f1_textbook_example();
  if (op == Operation::masked_softmax) return f2_textbook_example();
  throw std::invalid_argument(std::string("the text prints no softmax example for ") +
                              operation_name(op));
}

}  // namespace attn::prop

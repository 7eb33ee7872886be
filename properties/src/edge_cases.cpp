// The fixed edge cases, run after the random ones pass (edge_cases.hpp).
#include "edge_cases.hpp"

#include <cstdio>
#include <limits>
#include <string>

#include "attn/ref/textbook.hpp"

namespace attn::prop::detail {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// x rounded to the subject's storage type (exact inputs; -Inf past its range).
double in_type(double x, const Precision& p) { return p.round(x); }

/// The lowest finite value of the subject's storage type.
double lowest(const Precision& p) { return -p.largest_finite(); }

/// "-2e+09" style text for a tag.
std::string level_text(double level, const Precision& p) {
  if (level == lowest(p))
    return std::string("the lowest finite ") +
           (p.storage == NumberFormat::float16 || p.storage == NumberFormat::bfloat16
                ? ref::format_name(p.storage)
                : p.name.c_str());
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0e", level);
  return buf;
}

/// One query, three keys: the allowed logits both at `level`, key 2
/// forbidden with logit 0 (a mask, or -inf in S for softmax_rows).
Case lowest_logits_case(Operation op, double level, const Precision& p) {
  Case c;
  c.op = op;
  const std::string tag = "edge: allowed logits at " + level_text(level, p);
  c.tags = {tag};
  Mask m(1, 3);
  m << false, false, true;
  if (op == Operation::attention) {
    // d_k = 1 and q = 1: the logits are K's entries exactly (sqrt(1) = 1).
    c.Q = DMatrix::Constant(1, 1, 1.0);
    c.K.resize(3, 1);
    c.K << level, level, 0.0;
    c.V.resize(3, 1);
    c.V << 1.0, 2.0, 4.0;
    c.mask = m;
  } else {
    c.S.resize(1, 3);
    c.S << level, level, op == Operation::softmax_rows ? -kInf : 0.0;
    if (op == Operation::masked_softmax) c.mask = m;
  }
  return c;
}

/// A NaN and an Inf input, each on a case with no mask whose other entries
/// are small integers: a NaN at Q(0, 0) (or S(0, 1)) and +Inf at V(1, 0) (or
/// S(1, 0)). The answer must refuse or carry the bad value into the
/// answer (oracle_agreement, check_non_finite_answer).
std::vector<Case> non_finite_cases(Operation op) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Case base;
  base.op = op;
  if (op == Operation::attention) {
    base.Q.resize(2, 2);
    base.Q << 1, 0, 0, 1;
    base.K.resize(2, 2);
    base.K << 1, 1, 0, 1;
    base.V.resize(2, 1);
    base.V << 1, 2;
  } else {
    base.S.resize(2, 2);
    base.S << 0, 1, 2, 0;
    if (op == Operation::masked_softmax) base.mask = Mask::Constant(2, 2, false);
  }
  Case with_nan = base, with_inf = base;
  (op == Operation::attention ? with_nan.Q(0, 0) : with_nan.S(0, 1)) = nan;
  (op == Operation::attention ? with_inf.V(1, 0) : with_inf.S(1, 0)) = kInf;
  with_nan.tags = {"edge: a NaN input"};
  with_inf.tags = {"edge: an Inf input"};
  return {with_nan, with_inf};
}

}  // namespace

std::vector<Case> edge_cases(const Property& p, const GenConfig& gc) {
  const Operation op = p.op;
  if (op != Operation::softmax_rows && op != Operation::masked_softmax &&
      op != Operation::attention)
    return {};
  if (p.id != "oracle_agreement" && p.id != "exact_zeros" && p.id != "row_stochastic") return {};
  std::vector<Case> out;
  const Precision& prec = gc.precision;
  for (const double level : {-2e4, -2e9, -2e20, -3e38}) {
    const double v = in_type(level, prec);
    if (v > lowest(prec)) out.push_back(lowest_logits_case(op, v, prec));
  }
  out.push_back(lowest_logits_case(op, lowest(prec), prec));
  if (p.id == "oracle_agreement") {
    for (Case& c : non_finite_cases(op)) out.push_back(std::move(c));
  }
  if (op == Operation::softmax_rows || op == Operation::masked_softmax) {
    Case f2;
    f2.op = op;
    f2.S = ref::textbook::F2{}.S;  // [[0, 2, -inf], [1, -1, 0]]
    if (op == Operation::masked_softmax) f2.mask = Mask::Constant(2, 3, false);
    f2.tags = {"edge: -inf in S (the text's F2 matrix)"};
    out.push_back(f2);
  }
  return out;
}

}  // namespace attn::prop::detail

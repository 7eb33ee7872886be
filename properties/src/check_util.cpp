#include "check_util.hpp"

#include <cmath>
#include <limits>
#include <sstream>

namespace attn::prop::detail {

Index T_q(const Case& c) { return takes_qkv(c.op) ? c.Q.rows() : c.S.rows(); }
Index T_v(const Case& c) { return takes_qkv(c.op) ? c.K.rows() : c.S.cols(); }

std::optional<Failure> require_answer(const Outcome& o, const Case& c) {
  Failure f;
  f.outcome = o;
  if (o.kind == Outcome::Kind::refusal) {
    f.summary = "refused a valid input: " + o.error_type + ": " + o.message;
    return f;
  }
  if (o.kind == Outcome::Kind::fault) {
    f.summary = "no answer: " + o.message;
    return f;
  }
  auto shape = [](const DMatrix& M) { return std::to_string(M.rows()) + "x" + std::to_string(M.cols()); };
  if (o.A.rows() != T_q(c) || o.A.cols() != T_v(c)) {
    f.summary = "A is " + shape(o.A) + " but must be T_q x T_v = " + std::to_string(T_q(c)) + "x" +
                std::to_string(T_v(c)) + " (Lemma 1)";
    return f;
  }
  if (c.op == Operation::attention && (o.O.rows() != c.Q.rows() || o.O.cols() != c.V.cols())) {
    f.summary = "O is " + shape(o.O) + " but must be T_q x d_v = " + std::to_string(c.Q.rows()) +
                "x" + std::to_string(c.V.cols());
    return f;
  }
  return std::nullopt;
}

ref::PrecisionModel precision_model(const Precision& p) {
  return p.is_float ? ref::PrecisionModel::for_float() : ref::PrecisionModel::for_double();
}

Expected expected_for(const Case& c, const Precision& p) {
  Expected e;
  if (takes_qkv(c.op)) {
    const auto exact = ref::exact_attention(c.Q, c.K, c.V, c.mask);
    const auto bound = ref::attention_error_bound(c.Q, c.K, c.V, exact, precision_model(p));
    e.A = exact.A;
    e.O = exact.O;
    e.bound_A = bound.A;
    e.bound_O = bound.O;
    e.allowed = exact.allowed;
  } else {
    const auto exact = ref::exact_masked_softmax(c.S, c.mask);
    const auto bound = ref::softmax_error_bound(exact, precision_model(p));
    e.A = exact.A;
    e.bound_A = bound.A;
    e.allowed = exact.allowed;
  }
  return e;
}

std::optional<Failure> compare_with_bound(const std::string& name, const DMatrix& actual,
                                          const ref::RealMatrix& exact, const DMatrix& bound) {
  std::optional<WorstEntry> worst;
  double worst_ratio = -1;
  bool failed = false;
  for (Index i = 0; i < actual.rows(); ++i)
    for (Index j = 0; j < actual.cols(); ++j) {
      const double a = actual(i, j);
      const double x = static_cast<double>(exact(i, j));
      double err, ratio;
      if (!std::isfinite(a)) {
        err = std::abs(a - x);
        if (std::isnan(err)) err = std::numeric_limits<double>::quiet_NaN();
        ratio = std::numeric_limits<double>::infinity();
      } else {
        err = static_cast<double>(abs(ref::Real(a) - exact(i, j)));
        ratio = bound(i, j) > 0 ? err / bound(i, j) : (err > 0 ? std::numeric_limits<double>::infinity() : 0);
      }
      if (ratio > worst_ratio) {
        worst_ratio = ratio;
        worst = WorstEntry{name, i, j, x, a, err, bound(i, j)};
      }
      if (!(err <= bound(i, j))) failed = true;
    }
  if (!failed) return std::nullopt;
  Failure f;
  std::ostringstream os;
  os.precision(3);
  os << name << "(" << worst->row << ", " << worst->col << ") differs from the oracle by "
     << worst->error << ", more than the error bound " << worst->bound << " for this precision";
  f.summary = os.str();
  f.worst = worst;
  f.marked_row = worst->row;
  return f;
}

std::optional<Failure> with_outcome(std::optional<Failure> f, const Outcome& o) {
  if (f && !f->outcome) f->outcome = o;
  return f;
}

}  // namespace attn::prop::detail

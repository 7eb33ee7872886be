// The gradient is the derivative (its definition): for any direction E,
// <dX, E> = d/dt L(X + t E) at t = 0, with L = sum_il dO_il O_il. The
// derivative is taken by a central difference of the forward oracle in 50
// digits (exact_attention's logits and exact_softmax), independently of the
// backward oracle, along a direction of small integers in Q, in K and in V
// (one at a time, so the logits move linearly in t). The difference's own
// error is derived in reference/TOLERANCE.md, "The backward pass", (B8):
// zero truncation along V (L is linear in V), at most (h^2 / 6) sum_i 4 R_w,i
// R_b,i^3 along Q or K (the third derivative of a softmax average is a
// joint cumulant), plus the 50-digit evaluation's rounding over 2h. The
// subject's <dX, E> may differ from the derivative by sum |E| o bound_X.
#include <cmath>
#include <sstream>

#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "backward_check.hpp"
#include "oracle_memo.hpp"

namespace attn::prop {

namespace {

using ref::Real;
using ref::RealMatrix;

/// The step: 2^-64, so h^2 is far below every bound and the 50 digits
/// (about 2^-166) leave 2^-102 after dividing by 2h.
const Real kStep = ldexp(Real(1), -64);
/// Relative rounding of one 50-digit evaluation of the loss (a few hundred
/// operations of relative 2^-166 each), taken large.
const double kEvaluationRounding = 1e-45;

/// L = sum_il dO_il (softmax(S) V)_il over the allowed keys (exact_softmax).
Real loss(const RealMatrix& S, const ref::BoolMatrix& allowed, const RealMatrix& V, const DMatrix& dO) {
  const RealMatrix P = ref::exact_softmax(S, allowed);
  Real L = 0;
  for (Index i = 0; i < S.rows; ++i)
    for (Index j = 0; j < S.cols; ++j) {
      if (!allowed(i, j)) continue;
      Real w = 0;  // dO_i . V_j
      for (Index l = 0; l < V.cols; ++l) w += Real(dO(i, l)) * V(j, l);
      L += P(i, j) * w;
    }
  return L;
}

RealMatrix real(const DMatrix& M) {
  RealMatrix R(M.rows(), M.cols());
  for (Index i = 0; i < M.rows(); ++i)
    for (Index j = 0; j < M.cols(); ++j) R(i, j) = Real(M(i, j));
  return R;
}

/// The direction's part for an rows x cols matrix, from the knobs at `at`.
DMatrix direction(const std::vector<double>& params, std::size_t& at, Index rows, Index cols) {
  DMatrix E(rows, cols);
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < cols; ++j) E(i, j) = params.at(at++);
  return E;
}

struct Difference {
  Real derivative;  ///< the central difference
  double error;     ///< its bound (B8)
};

/// What a central difference along one direction needs: the case, its
/// 50-digit forward, V in 50 digits, w_ij = dO_i . V_j, the three
/// directions, the scale and the evaluations' rounding.
struct Along {
  const Case& c;
  const ref::ExactAttention& fwd;
  const RealMatrix& V;
  const RealMatrix& w;
  const DMatrix (&E)[3];
  Real scale;
  double rounding;
};

/// Along E_Q (which = 0) or E_K (1): the logits move linearly, S(t) = S + t B
/// with B = c E_Q K^T or c Q E_K^T; the truncation is (B8)'s.
Difference along_logits(const Along& a, int which) {
  const Case& c = a.c;
  const Index T_q = c.Q.rows(), T_v = c.K.rows(), d_k = c.Q.cols();
  const ref::BoolMatrix& allowed = a.fwd.allowed;
  RealMatrix up = a.fwd.S, down = a.fwd.S;
  Real truncation = 0;
  for (Index i = 0; i < T_q; ++i) {
    Real b_lo = 0, b_hi = 0, w_lo = 0, w_hi = 0;
    bool first = true;
    for (Index j = 0; j < T_v; ++j) {
      Real b = 0;
      for (Index r = 0; r < d_k; ++r)
        b += which == 0 ? Real(a.E[0](i, r)) * Real(c.K(j, r)) : Real(c.Q(i, r)) * Real(a.E[1](j, r));
      b *= a.scale;
      up(i, j) += kStep * b;
      down(i, j) -= kStep * b;
      if (!allowed(i, j)) continue;
      if (first || b < b_lo) b_lo = b;
      if (first || b > b_hi) b_hi = b;
      if (first || a.w(i, j) < w_lo) w_lo = a.w(i, j);
      if (first || a.w(i, j) > w_hi) w_hi = a.w(i, j);
      first = false;
    }
    // |d^3/dt^3 E_p[w]| = |kappa(w, b, b, b)| <= 4 range(w) range(b)^3.
    const Real range_b = b_hi - b_lo;
    truncation += 4 * (w_hi - w_lo) * range_b * range_b * range_b;
  }
  truncation *= kStep * kStep / 6;
  const Real fd = (loss(up, allowed, a.V, c.dO) - loss(down, allowed, a.V, c.dO)) / (2 * kStep);
  return {fd, static_cast<double>(truncation) + a.rounding};
}

/// Along E_V: L is linear in V, no truncation error.
Difference along_values(const Along& a) {
  RealMatrix up = a.V, down = a.V;
  for (Index j = 0; j < a.V.rows; ++j)
    for (Index l = 0; l < a.V.cols; ++l) {
      up(j, l) += kStep * Real(a.E[2](j, l));
      down(j, l) -= kStep * Real(a.E[2](j, l));
    }
  const Real fd =
      (loss(a.fwd.S, a.fwd.allowed, up, a.c.dO) - loss(a.fwd.S, a.fwd.allowed, down, a.c.dO)) / (2 * kStep);
  return {fd, a.rounding};
}

}  // namespace

Property backward_finite_difference() {
  Property p;
  p.id = "backward_finite_difference";
  p.hint = {"a gradient is not the derivative of the loss",
            "Along a direction E of Q, K or V, <dX, E> must equal the rate of change of sum(dO "
            "o O): a gradient off by a factor (the scale missed or applied twice), transposed, "
            "or for another loss fails here.",
            "the gradient's definition"};
  p.title = "dQ, dK and dV are the derivatives of the loss: a central difference of the forward "
            "oracle along a direction agrees with <dX, E>";
  p.source = "the gradient's definition, by a central difference of the 50-digit forward; "
             "reference/TOLERANCE.md, \"The backward pass\", (B8)";
  p.op = Operation::attention_backward;
  p.generator = [](const GenConfig& cfg) {
    return with_params(gen_case(cfg, MaskPolicy::any),
                       [](const Case& c) {
                         return std::size_t((c.Q.rows() + c.K.rows()) * c.Q.cols() +
                                            c.K.rows() * c.V.cols());
                       },
                       integer_values(2));
  };
  p.check = [](Subject& s, const Case& c) -> std::optional<Failure> {
    const Outcome o = s.run(c);
    if (auto f = detail::require_gradients(o, c)) return f;
    const Index T_q = c.Q.rows(), T_v = c.K.rows(), d_k = c.Q.cols(), d_v = c.V.cols();
    std::size_t at = 0;
    const DMatrix E[3] = {direction(c.params, at, T_q, d_k), direction(c.params, at, T_v, d_k),
                          direction(c.params, at, T_v, d_v)};
    const ref::ExactAttention fwd = detail::memo_exact_attention(c.Q, c.K, c.V, c.mask);
    const ref::BoolMatrix& allowed = fwd.allowed;
    const Real scale = 1 / sqrt(Real(d_k));
    const RealMatrix V = real(c.V);
    // w_ij = dO_i . V_j and F = sum_i max_j |w_ij| (over the allowed keys) bounds |L|.
    RealMatrix w(T_q, T_v);
    Real F = 0;
    for (Index i = 0; i < T_q; ++i) {
      Real most = 0;
      for (Index j = 0; j < T_v; ++j) {
        for (Index l = 0; l < d_v; ++l) w(i, j) += Real(c.dO(i, l)) * V(j, l);
        if (allowed(i, j)) most = std::max(most, Real(abs(w(i, j))));
      }
      F += most;
    }
    const double rounding = kEvaluationRounding * static_cast<double>(Real(F / kStep));
    const Along at_case{c, fwd, V, w, E, scale, rounding};
    const detail::ExpectedGradients e = detail::expected_gradients(c, s.precision());
    const char* along[3] = {"a direction E_Q of Q", "a direction E_K of K", "a direction E_V of V"};
    std::optional<Failure> worst;
    double worst_ratio = -1;
    for (int k = 0; k < 3; ++k) {
      const Difference d = k < 2 ? along_logits(at_case, k) : along_values(at_case);
      const DMatrix& G = detail::gradient(o, k);
      const DMatrix& bound = detail::gradient(e.bound, k);
      Real dot = 0;
      double tol = d.error;
      bool finite = true;
      for (Index i = 0; i < G.rows(); ++i)
        for (Index j = 0; j < G.cols(); ++j) {
          finite = finite && std::isfinite(G(i, j));
          if (!std::isfinite(G(i, j))) continue;
          dot += Real(G(i, j)) * Real(E[k](i, j));
          tol += std::abs(E[k](i, j)) * bound(i, j);
        }
      const double expected = static_cast<double>(d.derivative), actual = static_cast<double>(dot);
      const double err = finite ? static_cast<double>(Real(abs(dot - d.derivative)))
                                : std::numeric_limits<double>::infinity();
      const double ratio = tol > 0 ? err / tol : (err > 0 ? std::numeric_limits<double>::infinity() : 0);
      detail::record_backward_ratio(s, c, std::string("<") + detail::kGradientNames[k] + ", E>",
                                    ratio, 1);
      if (ratio <= 1 || ratio <= worst_ratio) continue;
      worst_ratio = ratio;
      Failure f;
      std::ostringstream os;
      os.precision(17);
      os << "along " << along[k] << " (the property's knobs), <" << detail::kGradientNames[k]
         << ", E> = " << actual << " but the central difference of the forward oracle gives "
         << expected;
      os.precision(3);
      os << " (difference " << err << ", allowed " << tol << ")";
      f.summary = os.str();
      f.worst = WorstEntry{std::string("<") + detail::kGradientNames[k] + ", E>", -1, -1, expected,
                           actual, err, tol};
      f.outcome = o;
      worst = f;
    }
    return worst;
  };
  return p;
}

}  // namespace attn::prop

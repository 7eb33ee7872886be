// Agreement and separation of answers (tolerance.hpp).
#include "tolerance.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attn/ref/precision_model.hpp"

namespace attn::mis::detail {
namespace {

using attn::ref::gamma;  // gamma_n = n u / (1 - n u), Higham Lemma 3.1
constexpr double kNoAgreement = std::numeric_limits<double>::infinity();

/// Entries of x and y agree within `tol` (shapes equal; NaN with NaN, an
/// infinity with the same one). tol2 (optional, same shape) is maxed in.
bool close(const DMatrix& x, const DMatrix& y, const DMatrix& tol, const DMatrix* tol2,
           double factor) {
  if (x.rows() != y.rows() || x.cols() != y.cols()) return false;
  for (Index i = 0; i < x.rows(); ++i)
    for (Index j = 0; j < x.cols(); ++j) {
      const double a = x(i, j), b = y(i, j);
      // An entry a model leaves undetermined (kAnyAnswer) takes anything.
      if ((tol.size() && tol(i, j) == kAnyAnswer) ||
          (tol2 && tol2->size() && (*tol2)(i, j) == kAnyAnswer))
        continue;
      if (std::isnan(a) || std::isnan(b)) {
        if (std::isnan(a) != std::isnan(b)) return false;
        continue;
      }
      if (std::isinf(a) || std::isinf(b)) {
        if (a != b) return false;
        continue;
      }
      double t = tol.size() ? tol(i, j) : 0.0;
      if (tol2 && tol2->size()) t = std::max(t, (*tol2)(i, j));
      if (!(std::abs(a - b) <= factor * t)) return false;
    }
  return true;
}

bool all_finite(const DMatrix& M) {
  for (Index i = 0; i < M.rows(); ++i)
    for (Index j = 0; j < M.cols(); ++j)
      if (!std::isfinite(M(i, j))) return false;
  return true;
}

/// The answer's parts compared, from the operation's answer:: flags: the
/// weights A where the answer holds them (an operation answering outputs
/// too, attention, only when the subject gives them), O, and the logsumexp
/// (the tiled forward's).
bool compares_A(const Case& c, bool returns_weights) {
  const unsigned answers = attn::prop::operation_spec(c.op).answers;
  return (answers & attn::prop::answer::weights) != 0 &&
         ((answers & attn::prop::answer::outputs) == 0 || returns_weights);
}
bool compares_O(const Case& c) { return returns_outputs(c.op); }
bool compares_lse(const Case& c) {
  return (attn::prop::operation_spec(c.op).answers & attn::prop::answer::logsumexp) != 0;
}

}  // namespace

double row_relative_tolerance(double u, double W, double E, double n) {
  const double rel = kTolFactor * (std::expm1(u * (W + E)) * (1 + 2 * u) + 2 * u +
                                   gamma(n + 2, u) + 2 * u);
  return rel > 0.25 || std::isnan(rel) ? kNoAgreement : rel;
}

double lse_tolerance(double u, double W, double E, double n, double lse) {
  const double t =
      kTolFactor * (u * (W + E) + 2 * u + gamma(n, u) + u * std::abs(std::isfinite(lse) ? lse : 0));
  return std::isnan(t) ? kNoAgreement : t;
}

bool agrees(const Outcome& s, const Prediction& p, const Case& c, bool returns_weights) {
  if (p.no_claim) return true;
  const bool answered = s.kind == Outcome::Kind::result ||
                        (s.kind == Outcome::Kind::fault && (s.A.size() || s.O.size()));
  if (s.kind == Outcome::Kind::refusal) return p.may_refuse;
  if (!answered) return false;
  if (p.non_finite_answer_ok) {
    bool fin = true;
    if (compares_A(c, returns_weights)) fin = fin && all_finite(s.A);
    if (compares_O(c)) fin = fin && all_finite(s.O);
    if (compares_lse(c)) fin = fin && all_finite(s.logsumexp);
    if (!fin) return true;
  }
  if (builds_mask(c.op)) {
    if (!p.has_answer) return false;
    return s.mask.rows() == p.answer.mask.rows() && s.mask.cols() == p.answer.mask.cols() &&
           s.mask == p.answer.mask;
  }
  if (p.any_finite_answer) {
    bool fin = true;
    if (compares_A(c, returns_weights)) fin = fin && all_finite(s.A);
    if (compares_O(c)) fin = fin && all_finite(s.O);
    if (compares_lse(c)) fin = fin && all_finite(s.logsumexp);
    if (fin) return true;
  }
  if (!p.has_answer) return false;
  if (compares_A(c, returns_weights) && !close(s.A, p.answer.A, p.tol_A, nullptr, 1.0)) return false;
  if (compares_O(c) && !close(s.O, p.answer.O, p.tol_O, nullptr, 1.0)) return false;
  if (compares_lse(c) &&
      !close(s.logsumexp, p.answer.logsumexp, p.tol_lse, nullptr, 1.0))
    return false;
  return true;
}

bool separated(const Prediction& a, const Prediction& b, const Case& c, double factor,
               bool returns_weights) {
  if (a.no_claim || b.no_claim) return false;
  if (a.may_refuse && b.may_refuse) return false;
  auto finite_answer = [&](const Prediction& p) {
    if (!p.has_answer) return false;
    bool fin = true;
    if (compares_A(c, returns_weights)) fin = fin && all_finite(p.answer.A);
    if (compares_O(c)) fin = fin && all_finite(p.answer.O);
    if (compares_lse(c)) fin = fin && all_finite(p.answer.logsumexp);
    return fin;
  };
  if (a.any_finite_answer && (b.any_finite_answer || finite_answer(b))) return false;
  if (b.any_finite_answer && finite_answer(a)) return false;
  if (!a.has_answer || !b.has_answer) return true;
  if (builds_mask(c.op)) return !(a.answer.mask == b.answer.mask);
  // A narrower model's own bound is replaced by the declared precision's.
  auto tA = [](const Prediction& p) -> const DMatrix& { return p.has_separation_tol ? p.separation_tol_A : p.tol_A; };
  auto tO = [](const Prediction& p) -> const DMatrix& { return p.has_separation_tol ? p.separation_tol_O : p.tol_O; };
  auto tL = [](const Prediction& p) -> const DMatrix& { return p.has_separation_tol ? p.separation_tol_lse : p.tol_lse; };
  if (compares_A(c, returns_weights) && !close(a.answer.A, b.answer.A, tA(a), &tA(b), factor))
    return true;
  if (compares_O(c) && !close(a.answer.O, b.answer.O, tO(a), &tO(b), factor)) return true;
  if (compares_lse(c) &&
      !close(a.answer.logsumexp, b.answer.logsumexp, tL(a), &tL(b), factor))
    return true;
  return false;
}

bool departs_where_separated(const Outcome& s, const Prediction& model, const Prediction& def,
                             const Case& c, bool returns_weights, double factor) {
  if (!model.has_separation_tol) return true;  // not narrower than declared
  if (model.no_claim || def.no_claim || !model.has_answer || !def.has_answer) return true;
  if (model.any_finite_answer || def.any_finite_answer || model.non_finite_answer_ok ||
      def.non_finite_answer_ok)
    return true;
  if (s.kind != Outcome::Kind::result || builds_mask(c.op)) return true;
  // The narrow type's own answer is visibly off the definition on some entry
  // (beyond `factor` times the definition's bound, NaN or infinity pattern
  // included) where the model leaves nothing open. Its tolerance may be
  // +Inf there (the a-priori bound says nothing): a computation in that type
  // is still not exact to the declared precision.
  auto visible = [&](const DMatrix& mx, const DMatrix& dx, const DMatrix& tm, const DMatrix& td) {
    if (mx.rows() != dx.rows() || mx.cols() != dx.cols()) return false;
    for (Index i = 0; i < mx.rows(); ++i)
      for (Index j = 0; j < mx.cols(); ++j) {
        if (tm.size() && tm(i, j) == kAnyAnswer) continue;
        const double a = mx(i, j), b = dx(i, j);
        if (std::isnan(a) || std::isnan(b)) {
          if (std::isnan(a) != std::isnan(b)) return true;
          continue;
        }
        if (std::isinf(a) || std::isinf(b)) {
          if (a != b) return true;
          continue;
        }
        const double t = td.size() ? td(i, j) : 0.0;
        if (std::abs(a - b) > factor * t) return true;
      }
    return false;
  };
  auto exact_where_told_apart = [&](const DMatrix& sx, const DMatrix& mx, const DMatrix& dx,
                                    const DMatrix& tm, const DMatrix& td) {
    return visible(mx, dx, tm, td) && close(sx, dx, td, nullptr, 1.0);
  };
  if (compares_A(c, returns_weights) &&
      exact_where_told_apart(s.A, model.answer.A, def.answer.A, model.tol_A, def.tol_A))
    return false;
  if (compares_O(c) &&
      exact_where_told_apart(s.O, model.answer.O, def.answer.O, model.tol_O, def.tol_O))
    return false;
  if (compares_lse(c) &&
      exact_where_told_apart(s.logsumexp, model.answer.logsumexp, def.answer.logsumexp,
                             model.tol_lse, def.tol_lse))
    return false;
  return true;
}

}  // namespace attn::mis::detail

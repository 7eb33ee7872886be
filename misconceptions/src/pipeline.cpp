// The parameterised computation of section 32.2 (pipeline.hpp). Written from
// the definitions: logits (Lemma 1), the mask before the softmax (Lemma 2),
// the shifted softmax (32.2.4), O = A V, the online form (FlashAttention,
// Dao et al. 2022, Algorithm 1) and multi-head attention (32.2.5).
#include "pipeline.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>

#include "attn/prop/operation_table.hpp"
#include "tolerance.hpp"

namespace attn::mis::detail {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// NumPy-like maximum: NaN if any entry is NaN, -inf for none.
double nan_max(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return kNaN;
  return std::max(a, b);
}

/// r * x with +Inf * 0 = +Inf (no claim stays no claim).
double times(double r, double x) { return std::isinf(r) ? r : r * x; }

bool non_finite_input(const Case& c) {
  auto bad = [](const DMatrix& M, bool neg_inf_ok) {
    for (Index i = 0; i < M.rows(); ++i)
      for (Index j = 0; j < M.cols(); ++j) {
        const double x = M(i, j);
        if (std::isnan(x) || (std::isinf(x) && !(neg_inf_ok && x < 0))) return true;
      }
    return false;
  };
  if (takes_logits(c.op)) return bad(c.S, true);
  if (takes_projections(c.op)) {
    if (bad(c.X, false) || bad(c.W_O, false)) return true;
    for (const auto& h : c.heads)
      if (bad(h.W_Q, false) || bad(h.W_K, false) || bad(h.W_V, false)) return true;
    return false;
  }
  return bad(c.Q, false) || bad(c.K, false) || bad(c.V, false);
}

bool dk_mismatch(const Case& c) {
  if (takes_qkv(c.op)) return c.Q.cols() != c.K.cols();
  if (takes_projections(c.op))
    for (const auto& h : c.heads)
      if (h.W_Q.cols() != h.W_K.cols()) return true;
  return false;
}

/// One head's result before the fully-forbidden-row policy.
struct HeadOut {
  DMatrix A, O, tol_A, tol_O;
  std::vector<double> lse, tol_lse;
  std::vector<bool> full_row;  ///< rows with no allowed key (real or as the model reads the mask)
  bool refuse_shape = false;   ///< the mistake itself raises (mask^T against T_q != T_v)
  /// A row whose every logit (before the mask) is -inf (an input past a
  /// narrow type's range, stored as -inf).
  bool all_inf_row = false;
};

struct HeadIn {
  const DMatrix* S = nullptr;  ///< given logits (softmax operations), or
  DMatrix Q, K;                ///< queries and keys
  const DMatrix* V = nullptr;  ///< values (none for the softmax operations)
  DMatrix V_mag;               ///< |V| bound (with projection error folded in)
  double V_rel = 0;            ///< relative error of V, in units of u
  std::optional<Mask> mask;
  Index d_v = 0, d_model = 0;
  Index d_scale = 0;  ///< width in the scale (0: the width of the product)
  DMatrix logit_err;  ///< per entry, logit error in units of u (computed here for Q, K if empty)
  Operation op = Operation::attention;
  Index tile_k = 0;
};

double scale_divisor(Scale s, Index d_k, Index d_v, Index T_v, Index d_model, double width) {
  switch (s) {
    case Scale::fixed_width: return std::sqrt(width);
    case Scale::sqrt_dk: return std::sqrt(double(d_k));
    case Scale::none: return 1.0;
    case Scale::dk: return double(d_k);
    case Scale::sqrt_dv: return std::sqrt(double(d_v));
    case Scale::sqrt_Tv: return std::sqrt(double(T_v));
    case Scale::sqrt_dmodel: return std::sqrt(double(d_model));
    case Scale::times_sqrt_dk: return 1.0 / std::sqrt(double(d_k));
  }
  return 1.0;
}

/// run_head's working state, filled stage by stage in the order of the
/// computation (logits, mask, shift, exponentials, weights, outputs).
struct HeadWork {
  const HeadIn& in;
  const Knobs& k;
  NumberFormat a;
  double u_eff;
  HeadOut out{};
  Index T_q = 0, T_v = 0;
  bool logits_op = false;         ///< a softmax operation: -inf in S means forbidden
  DMatrix S{}, err{};             ///< the logits as computed; their error in units of u
  Mask real{}, used{};            ///< the forbidden set, and the set the mistake uses
  DMatrix L{};                    ///< working logits (the mask applied as the mistake does)
  std::vector<double> m{};        ///< each row's shift
  DMatrix P{};                    ///< the exponentials
  std::vector<double> W{}, E{}, rel{};  ///< each row's conditioning, logit error, relative tolerance
  DMatrix A{};                    ///< the weights
  std::vector<double> Z{};        ///< each row's normaliser
  std::vector<Index> undetermined_cols{};  ///< columns a column normaliser divides 0 by 0 in
  /// x rounded to the arithmetic's format.
  double r(double x) const { return ref::round_to_format(a, x); }
  /// Row i of M summed left to right in the arithmetic's format.
  double row_sum(const DMatrix& M, Index i) const {
    double z = 0;
    for (Index j = 0; j < T_v; ++j) z = r(z + M(i, j));
    return z;
  }
};

/// Whether logit (i, j) is exact in the arithmetic whatever the order of the
/// code's operations: at most one nonzero product q_t k_t, exact in the
/// format (no sum rounds), and a scale that is a power of two which neither
/// the product nor q or k scaled first leaves the format's normal range
/// (q * scale before the product, as PaLM, MLX and equinox write it, or the
/// logits divided after). The a-priori bound gamma_n sum |q_t k_t| is then 0,
/// not the (d + 4) u |q k| that at logits near float lowest leaves the row
/// no claim at all (an infinite bound).
bool exact_logit(const HeadWork& w, Index i, Index j, Index d_prod, double div) {
  if (w.k.scale == Scale::dk || w.k.scale == Scale::times_sqrt_dk) return false;
  int exp2 = 0;
  if (!(div > 0) || std::frexp(div, &exp2) != 0.5) return false;  // a power of two
  const double tiny = ref::format_smallest_normal(w.a);
  auto exact = [&w, tiny](double x) {
    return std::isfinite(x) && w.r(x) == x && (x == 0 || std::abs(x) >= tiny);
  };
  int nonzero = 0;
  for (Index t = 0; t < d_prod; ++t) {
    const double q = w.in.Q(i, t), k = w.in.K(j, t);
    if (q == 0 || k == 0) continue;
    if (++nonzero > 1) return false;
    const double p = q * k;
    if (std::fma(q, k, -p) != 0 || !exact(p) || !exact(p / div) || !exact(q / div) || !exact(k / div))
      return false;
  }
  return true;
}

/// The logits S (given, or Q K^T under the mistake's scale) and their error.
void head_logits(HeadWork& w) {
  auto r = [&w](double x) { return w.r(x); };
  const HeadIn& in = w.in;
  const Knobs& k = w.k;
  const bool given = in.S != nullptr;
  const Index T_q = w.T_q = given ? in.S->rows() : in.Q.rows();
  const Index T_v = w.T_v = given ? in.S->cols() : in.K.rows();
  DMatrix& S = w.S = DMatrix(T_q, T_v);
  DMatrix& err = w.err = in.logit_err.size() ? in.logit_err : DMatrix(DMatrix::Zero(T_q, T_v));
  const bool own_err = in.logit_err.size() == 0;
  if (given) {
    for (Index i = 0; i < T_q; ++i)
      for (Index j = 0; j < T_v; ++j) S(i, j) = r((*in.S)(i, j));
  } else {
    const Index d_prod = std::min(in.Q.cols(), in.K.cols());
    const Index d = in.d_scale > 0 ? in.d_scale : d_prod;
    const double div = scale_divisor(k.scale, d, in.d_v, T_v, in.d_model, k.scale_width);
    for (Index i = 0; i < T_q; ++i) {
      for (Index j = 0; j < T_v; ++j) {
        double dot = 0, mag = 0;
        bool stored_inf = false;  // an input stored as +-inf (narrowed_inputs)
        for (Index t = 0; t < d_prod; ++t) {
          dot = r(dot + r(in.Q(i, t) * in.K(j, t)));
          mag += std::abs(in.Q(i, t) * in.K(j, t));
          stored_inf = stored_inf || std::isinf(in.Q(i, t)) || std::isinf(in.K(j, t));
        }
        double s;
        if (k.scale == Scale::dk) {
          const double sq = r(std::sqrt(double(d)));
          s = r(r(dot / sq) / sq);  // scaled twice: Q / sqrt(d_k), then the logits again
        } else if (k.scale == Scale::times_sqrt_dk) {
          s = r(dot * r(std::sqrt(double(d))));
        } else {
          s = r(dot / r(div));
        }
        S(i, j) = s;
        // An infinite logit from an infinite input is exact in any order
        // (infinite_logits_determined).
        if (own_err)
          err(i, j) = (stored_inf && std::isinf(s)) || exact_logit(w, i, j, d_prod, div)
                          ? 0.0
                          : double(d_prod + 4) * mag / div;
      }
    }
  }
}

/// The real forbidden set and the set the mistake uses (a transposed mask
/// against T_q != T_v: the mistake itself raises, out.refuse_shape).
void head_forbidden_sets(HeadWork& w) {
  const HeadIn& in = w.in;
  const Knobs& k = w.k;
  HeadOut& out = w.out;
  const Index T_q = w.T_q, T_v = w.T_v;
  const DMatrix& S = w.S;
  const bool logits_op = w.logits_op = takes_logits(in.op);
  w.real = Mask::Constant(T_q, T_v, false);
  w.used = Mask::Constant(T_q, T_v, false);
  Mask& real = w.real;
  Mask& used = w.used;
  for (Index i = 0; i < T_q; ++i)
    for (Index j = 0; j < T_v; ++j) {
      const bool inf = logits_op && S(i, j) == -kInf;
      const bool m = in.mask && (*in.mask)(i, j);
      real(i, j) = m || inf;
      bool u = m;
      switch (k.mask) {
        case MaskUse::ignored: u = false; break;
        case MaskUse::inverted: u = in.mask && !(*in.mask)(i, j); break;
        case MaskUse::transposed:
          if (in.mask && T_q != T_v) {
            out.refuse_shape = true;
            u = false;
          } else {
            u = in.mask && (*in.mask)(j, i);
          }
          break;
        case MaskUse::causal_assumed: u = in.mask && j > i; break;
        default: break;
      }
      used(i, j) = u;
    }
}

/// The working logits L (the mask applied as the mistake applies it) and
/// the rows the code meets with no allowed key (out.full_row).
void head_working_logits(HeadWork& w) {
  auto r = [&w](double x) { return w.r(x); };
  const HeadIn& in = w.in;
  const Knobs& k = w.k;
  HeadOut& out = w.out;
  const Index T_q = w.T_q, T_v = w.T_v;
  const DMatrix& S = w.S;
  DMatrix& err = w.err;
  const Mask& real = w.real;
  const Mask& used = w.used;
  w.L = S;
  DMatrix& L = w.L;
  for (Index i = 0; i < T_q; ++i)
    for (Index j = 0; j < T_v; ++j) {
      if (!used(i, j)) {
        if (k.mask == MaskUse::times_inf && in.mask) L(i, j) = kNaN;  // S + 0 * (-inf)
        continue;
      }
      switch (k.mask) {
        case MaskUse::finite_fill:
        case MaskUse::fill_zeroed: L(i, j) = r(k.fill); err(i, j) = 0; break;  // fills are exact
        case MaskUse::additive_fill:  // one more rounding, of a sum of size |S + fill|
          L(i, j) = r(S(i, j) + r(k.fill));
          err(i, j) += std::abs(L(i, j));
          break;
        case MaskUse::multiplicative: L(i, j) = 0.0 * S(i, j); err(i, j) = 0; break;
        case MaskUse::post_zero:
        case MaskUse::post_renorm:
        case MaskUse::on_values:
        case MaskUse::ignored_in_output: break;
        default: L(i, j) = -kInf; break;
      }
    }
  out.full_row.assign(std::size_t(T_q), false);
  for (Index i = 0; i < T_q; ++i) {
    bool all_real = T_v > 0, all_used = T_v > 0;
    for (Index j = 0; j < T_v; ++j) {
      all_real = all_real && real(i, j);
      all_used = all_used && (used(i, j) || (w.logits_op && S(i, j) == -kInf));
    }
    const bool value_only = k.mask == MaskUse::ignored || k.mask == MaskUse::post_zero ||
                            k.mask == MaskUse::on_values;
    out.full_row[std::size_t(i)] = all_real || (all_used && !value_only);
    bool all_inf = T_v > 0;
    for (Index j = 0; j < T_v; ++j) all_inf = all_inf && S(i, j) == -kInf;
    if (all_inf) out.all_inf_row = true;
  }
}

/// Each row's shift m_i as the mistake takes it (32.2.4: the row's maximum).
void head_shifts(HeadWork& w) {
  auto r = [&w](double x) { return w.r(x); };
  const Knobs& k = w.k;
  const Index T_q = w.T_q, T_v = w.T_v;
  const DMatrix& S = w.S;
  const DMatrix& L = w.L;
  w.m.assign(std::size_t(T_q), 0.0);
  std::vector<double>& m = w.m;
  double gmax = -kInf;
  for (Index i = 0; i < T_q; ++i)
    for (Index j = 0; j < T_v; ++j) gmax = nan_max(gmax, L(i, j));
  for (Index i = 0; i < T_q; ++i) {
    double rm = -kInf, sm = -kInf;
    for (Index j = 0; j < T_v; ++j) {
      rm = nan_max(rm, L(i, j));
      sm = nan_max(sm, S(i, j));
    }
    switch (k.shift) {
      case Shift::row_max: m[std::size_t(i)] = rm; break;
      case Shift::none: m[std::size_t(i)] = 0; break;
      case Shift::global_max: m[std::size_t(i)] = gmax; break;
      case Shift::max_all_logits: m[std::size_t(i)] = sm; break;
      case Shift::floor: m[std::size_t(i)] = nan_max(r(k.floor), rm); break;
      case Shift::column_max: m[std::size_t(i)] = rm; break;  // (per column, below)
    }
  }
}

/// The exponentials P and the conditioning W of each row.
void head_exponentials(HeadWork& w) {
  auto r = [&w](double x) { return w.r(x); };
  const Knobs& k = w.k;
  const Index T_q = w.T_q, T_v = w.T_v;
  const DMatrix& L = w.L;
  const std::vector<double>& m = w.m;
  const NumberFormat a = w.a;
  w.P = DMatrix(T_q, T_v);
  w.W.assign(std::size_t(T_q), 0.0);
  DMatrix& P = w.P;
  std::vector<double>& W = w.W;
  const double log_tiny = std::log(ref::format_smallest_normal(a)) - 5;
  for (Index i = 0; i < T_q; ++i)
    for (Index j = 0; j < T_v; ++j) {
      if (k.norm == Norm::abs_values) {
        P(i, j) = L(i, j) == -kInf ? 0.0 : r(std::abs(L(i, j)) + 1.0);
        if (std::isfinite(L(i, j))) W[std::size_t(i)] = std::max(W[std::size_t(i)], std::abs(L(i, j)));
        continue;
      }
      double shift = m[std::size_t(i)];
      if (k.shift == Shift::column_max) {
        shift = -kInf;
        for (Index q = 0; q < T_q; ++q) shift = nan_max(shift, L(q, j));
      }
      const double x = r(L(i, j) - shift);
      double p = r(std::exp(x));
      if (k.exp_stand_in > 0 && !std::isnan(x) && x < std::log(k.exp_stand_in)) p = k.exp_stand_in;
      P(i, j) = p;
      if (std::isfinite(x) && x > log_tiny) W[std::size_t(i)] = std::max(W[std::size_t(i)], std::abs(x));
    }
  // softmax1's extra term exp(0 - m) is one more exponential of the row.
  if (k.extra_zero_logit)
    for (Index i = 0; i < T_q; ++i) {
      const double x = -m[std::size_t(i)];
      if (std::isfinite(x) && x > log_tiny) W[std::size_t(i)] = std::max(W[std::size_t(i)], std::abs(x));
    }
}

/// Each row's relative tolerance from its conditioning and its logits' errors.
void head_row_tolerances(HeadWork& w) {
  const Knobs& k = w.k;
  const Index T_q = w.T_q, T_v = w.T_v;
  const DMatrix& L = w.L;
  const DMatrix& err = w.err;
  const std::vector<double>& m = w.m;
  const std::vector<double>& W = w.W;
  const double log_tiny = std::log(ref::format_smallest_normal(w.a)) - 5;
  // The logits' own errors matter through the exponentials that do not
  // underflow; with a single such entry the row is exactly one-hot.
  w.E.assign(std::size_t(T_q), 0.0);
  std::vector<double>& E = w.E;
  for (Index i = 0; i < T_q; ++i) {
    int live = 0;
    double e = 0;
    for (Index j = 0; j < T_v; ++j) {
      const double x = L(i, j) - m[std::size_t(i)];
      if (k.norm == Norm::abs_values || k.shift == Shift::column_max || std::isnan(x) ||
          x > log_tiny) {
        ++live;
        e = std::max(e, err(i, j));
      }
    }
    // softmax1's extra exp(0 - m), where it does not underflow, is one more
    // live term: a single allowed key is no longer one-hot.
    if (k.extra_zero_logit && std::isfinite(m[std::size_t(i)]) && -m[std::size_t(i)] > log_tiny) ++live;
    E[std::size_t(i)] = live > 1 || k.norm != Norm::row ? 2 * e : 0.0;
  }
  w.rel.assign(static_cast<std::size_t>(T_q), 0.0);
  for (Index i = 0; i < T_q; ++i)
    w.rel[std::size_t(i)] = row_relative_tolerance(w.u_eff, W[std::size_t(i)], E[std::size_t(i)],
                                                   double(T_v + T_q));
}

/// The normalisers Z and the weights A as the mistake normalises them.
void head_weights(HeadWork& w) {
  auto r = [&w](double x) { return w.r(x); };
  const HeadIn& in = w.in;
  const Knobs& k = w.k;
  const Index T_q = w.T_q, T_v = w.T_v;
  const Mask& used = w.used;
  DMatrix& P = w.P;
  auto row_sum = [&w](const DMatrix& M, Index i) { return w.row_sum(M, i); };
  w.A = DMatrix(T_q, T_v);
  w.Z.assign(std::size_t(T_q), 0.0);
  DMatrix& A = w.A;
  std::vector<double>& Z = w.Z;
  std::vector<Index>& undetermined_cols = w.undetermined_cols;
  // Renormalised with an epsilon, the code divides the zeroed softmax by
  // its row sum plus eps (A / (A.sum() + eps)): the multiplicative path's
  // last step, below; without a mask it is the plain softmax (the repair
  // sits under `if mask is not None`). Without an epsilon, A_ij = P_ij / sum
  // of the allowed P.
  const bool renorm_eps = k.mask == MaskUse::post_renorm && k.mult_eps > 0 && in.mask;
  if (k.mask == MaskUse::post_renorm && !renorm_eps)
    for (Index i = 0; i < T_q; ++i)
      for (Index j = 0; j < T_v; ++j)
        if (used(i, j)) P(i, j) = 0;
  // Columns the column-normalising mistake divides 0 by 0 in: what the code
  // does there (NaN, or 0 after nan_to_num) is not determined by the mistake.
  if (k.norm == Norm::column) {
    for (Index j = 0; j < T_v; ++j) {
      double z = 0;
      for (Index i = 0; i < T_q; ++i) z = r(z + P(i, j));
      z = r(z + k.eps);
      const bool empty = !(z > 0);  // 0/0, or NaN from a column with nothing allowed
      if (empty) undetermined_cols.push_back(j);
      for (Index i = 0; i < T_q; ++i) A(i, j) = empty ? 0.0 : r(P(i, j) / z);
    }
    for (Index i = 0; i < T_q; ++i) Z[std::size_t(i)] = row_sum(P, i);
  } else if (k.norm == Norm::global) {
    double z = 0;
    for (Index i = 0; i < T_q; ++i) z = r(z + row_sum(P, i));
    z = r(z + k.eps);
    for (Index i = 0; i < T_q; ++i) {
      Z[std::size_t(i)] = z;
      for (Index j = 0; j < T_v; ++j) A(i, j) = r(P(i, j) / z);
    }
  } else {
    for (Index i = 0; i < T_q; ++i) {
      // softmax1: the extra logit 0 adds exp(0 - m) to the sum.
      const double extra = k.extra_zero_logit ? r(std::exp(r(0.0 - w.m[std::size_t(i)]))) : 0.0;
      const double z = k.extra_zero_logit ? r(r(row_sum(P, i) + extra) + k.eps) : r(row_sum(P, i) + k.eps);
      Z[std::size_t(i)] = z;
      const bool guarded = k.zero_sum_guard && z == 0;
      for (Index j = 0; j < T_v; ++j) A(i, j) = guarded ? 0.0 : r(P(i, j) / z);
    }
  }
  if (k.mask == MaskUse::post_zero || k.mask == MaskUse::multiplicative || renorm_eps ||
      k.mask == MaskUse::fill_zeroed)
    for (Index i = 0; i < T_q; ++i)
      for (Index j = 0; j < T_v; ++j)
        if (used(i, j)) A(i, j) = 0;
  if (k.mask == MaskUse::multiplicative || renorm_eps)
    for (Index i = 0; i < T_q; ++i) {
      const double z = r(row_sum(A, i) + k.mult_eps);
      for (Index j = 0; j < T_v; ++j) A(i, j) = r(A(i, j) / z);
    }
}

/// The tolerances of A: relative per row; an absolute underflow term on the
/// entries the definition allows (forbidden ones are exact: bound 0).
void head_weight_tolerances(HeadWork& w) {
  const Knobs& k = w.k;
  HeadOut& out = w.out;
  const Index T_q = w.T_q, T_v = w.T_v;
  const Mask& real = w.real;
  const DMatrix& A = w.A;
  const DMatrix& L = w.L;
  const std::vector<double>& rel = w.rel;
  const NumberFormat a = w.a;
  const std::vector<Index>& undetermined_cols = w.undetermined_cols;
  out.tol_A = DMatrix(T_q, T_v);
  // A weight the model computes as exp(-inf) = 0 (its working logit -inf) is
  // exactly 0 in every precision, whatever the row's conditioning: its
  // relative part is 0 even where the row's bound says nothing (+Inf, as
  // with allowed logits near float lowest), so the model claims that 0.
  const bool exp_of_logit = k.norm == Norm::row && k.exp_stand_in == 0 && k.eps == 0 &&
                            k.mask != MaskUse::multiplicative && k.mask != MaskUse::post_renorm;
  // Likewise a weight whose exponential underflows whatever the logits'
  // errors: with the row's maximum subtracted, the largest exponential is
  // exp(0) = 1, so Z >= 1, and exp(x) for x below the format's smallest
  // normal's log, even moved by the bound on both logits' errors and the
  // subtraction's rounding, leaves A_ij below the absolute underflow term.
  // A row whose logits are large (-1e9 added in float32: errors of hundreds)
  // has no relative bound, but a key 1e9 below its maximum still gets 0.
  const bool max_shifted = exp_of_logit && k.shift == Shift::row_max && k.tiled == Tiled::naive;
  const double log_tiny = std::log(ref::format_smallest_normal(a)) - 5;
  for (Index i = 0; i < T_q; ++i) {
    double row_err = 0;
    for (Index j = 0; j < T_v; ++j)
      if (std::isfinite(w.err(i, j))) row_err = std::max(row_err, w.err(i, j));
    const double mi = w.m[std::size_t(i)];
    for (Index j = 0; j < T_v; ++j) {
      const bool exact_zero = exp_of_logit && A(i, j) == 0 && L(i, j) == -kInf;
      const double x = L(i, j) - mi;
      const bool underflows = max_shifted && std::isfinite(L(i, j)) && std::isfinite(mi) &&
                              std::isfinite(w.err(i, j)) &&
                              x + kTolFactor * w.u_eff * (2 * row_err + std::abs(x)) < log_tiny;
      const double abs_term = real(i, j) ? 0.0 : double(T_v + 2) * ref::format_smallest_normal(a);
      out.tol_A(i, j) = (exact_zero ? 0.0 : times(rel[std::size_t(i)], std::abs(A(i, j)))) + abs_term;
      if (underflows) out.tol_A(i, j) = std::min(out.tol_A(i, j), double(T_v + 2) * ref::format_smallest_normal(a));
    }
  }
  // A stand-in for exp(-inf) is known to a few digits only: vectorised exps
  // clamp their argument at slightly different points (Eigen's clamp gives
  // 5.56e-309 or 5.56e-309 x (1 - 1e-3) depending on the code path).
  if (k.exp_stand_in > 0)
    for (Index i = 0; i < T_q; ++i)
      for (Index j = 0; j < T_v; ++j)
        if (A(i, j) > 0 && A(i, j) < 1e3 * k.exp_stand_in)
          out.tol_A(i, j) = std::max(out.tol_A(i, j), 0.01 * A(i, j));
  for (const Index j : undetermined_cols)
    for (Index i = 0; i < T_q; ++i) out.tol_A(i, j) = kAnyAnswer;
}

/// The outputs O = A V and each row's logsumexp, with their tolerances.
void head_outputs(HeadWork& w) {
  auto r = [&w](double x) { return w.r(x); };
  const HeadIn& in = w.in;
  const Knobs& k = w.k;
  HeadOut& out = w.out;
  const Index T_q = w.T_q, T_v = w.T_v;
  const Mask& used = w.used;
  const DMatrix& A = w.A;
  const DMatrix& err = w.err;
  const std::vector<double>& rel = w.rel;
  const std::vector<double>& m = w.m;
  const std::vector<double>& W = w.W;
  const std::vector<double>& E = w.E;
  const std::vector<double>& Z = w.Z;
  const NumberFormat a = w.a;
  const double u_eff = w.u_eff;
  const std::vector<Index>& undetermined_cols = w.undetermined_cols;
  if (in.V) {
    const DMatrix& V = *in.V;
    const Index d_v = V.cols();
    out.O = DMatrix(T_q, d_v);
    out.tol_O = DMatrix(T_q, d_v);
    for (Index i = 0; i < T_q; ++i)
      for (Index l = 0; l < d_v; ++l) {
        double o = 0, mag = 0, vmag = 0;
        for (Index j = 0; j < T_v; ++j) {
          const double v = (k.mask == MaskUse::on_values && used(i, j)) ? 0.0 : V(j, l);
          o = r(o + r(A(i, j) * v));
          mag += std::abs(A(i, j)) * in.V_mag(j, l);
          vmag += in.V_mag(j, l);
        }
        out.O(i, l) = o;
        out.tol_O(i, l) =
            times(rel[std::size_t(i)] + kTolFactor * u_eff * (double(T_v + 2) + in.V_rel), mag) +
            double(T_v + 2) * ref::format_smallest_normal(a) * vmag;
      }
  }
  // The outputs too are undetermined when a column is: O = A V carries a
  // NaN there into every row, a guard's 0 into none.
  if (!undetermined_cols.empty()) out.tol_O.setConstant(kAnyAnswer);
  out.A = A;
  out.lse.assign(std::size_t(T_q), 0.0);
  out.tol_lse.assign(std::size_t(T_q), 0.0);
  for (Index i = 0; i < T_q; ++i) {
    const double lz = r(std::log(Z[std::size_t(i)]));
    out.lse[std::size_t(i)] = r(m[std::size_t(i)] + lz);
    out.tol_lse[std::size_t(i)] =
        lse_tolerance(u_eff, W[std::size_t(i)], E[std::size_t(i)] + err.row(i).maxCoeff(), double(T_v),
                      out.lse[std::size_t(i)]);
  }
}

/// The online form over key tiles (FlashAttention, Algorithm 1, as the
/// mistake runs it): replaces O and logsumexp.
void head_online_form(HeadWork& w) {
  auto r = [&w](double x) { return w.r(x); };
  const HeadIn& in = w.in;
  const Knobs& k = w.k;
  HeadOut& out = w.out;
  const Index T_q = w.T_q, T_v = w.T_v;
  const DMatrix& L = w.L;
  const double u_eff = w.u_eff;
  const bool over_tiles = (attn::prop::operation_spec(in.op).inputs & attn::prop::input::tiles) != 0;
  if (over_tiles && k.tiled != Tiled::naive && in.V && in.tile_k > 0) {
    const DMatrix& V = *in.V;
    const Index tk = in.tile_k;
    const Index tiles = k.tiled == Tiled::last_tile_dropped ? T_v / tk : (T_v + tk - 1) / tk;
    for (Index i = 0; i < T_q; ++i) {
      double mi = -kInf, l = 0;
      std::vector<double> acc(std::size_t(V.cols()), 0.0);
      for (Index t = 0; t < tiles; ++t) {
        const Index j0 = t * tk, j1 = std::min(T_v, j0 + tk);
        double mt = -kInf;
        for (Index j = j0; j < j1; ++j) mt = nan_max(mt, L(i, j));
        const double mn = nan_max(mi, mt);
        if (k.tiled == Tiled::forbidden_tile_nan) {
          // Algorithm 1 unguarded: P = exp(S - tile max), both sums rescaled to mn.
          double lt = 0;
          std::vector<double> pv(acc.size(), 0.0);
          for (Index j = j0; j < j1; ++j) {
            const double p = r(std::exp(r(L(i, j) - mt)));
            lt = r(lt + p);
            for (std::size_t c = 0; c < acc.size(); ++c) pv[c] = r(pv[c] + r(p * V(j, Index(c))));
          }
          const double alpha = r(std::exp(r(mi - mn))), beta = r(std::exp(r(mt - mn)));
          l = r(r(alpha * l) + r(beta * lt));
          for (std::size_t c = 0; c < acc.size(); ++c) acc[c] = r(r(alpha * acc[c]) + r(beta * pv[c]));
        } else {
          if (mn == -kInf) {
            // Nothing allowed yet. Unguarded, the running-maximum form computes
            // exp(m - m_new) and exp(S - m_new) with m = m_new = -inf: NaN in
            // the sum and the output, which later tiles (alpha = 0) keep.
            if (k.tiled == Tiled::forbidden_tile_nan_running && j1 > j0) {
              l = kNaN;
              for (auto& x : acc) x = kNaN;
            }
            continue;
          }
          const double alpha =
              k.tiled == Tiled::no_rescale || mi == -kInf ? (mi == -kInf ? 0.0 : 1.0)
                                                          : r(std::exp(r(mi - mn)));
          l = r(alpha * l);
          for (auto& x : acc) x = r(alpha * x);
          for (Index j = j0; j < j1; ++j) {
            const double p = r(std::exp(r(L(i, j) - mn)));
            l = r(l + p);
            for (std::size_t c = 0; c < acc.size(); ++c) acc[c] = r(acc[c] + r(p * V(j, Index(c))));
          }
        }
        mi = mn;
      }
      // No allowed key among the tiles seen (the last, dropped, tile held
      // them all): the code meets a row it thinks fully forbidden, and does
      // what it does with one.
      if (mi == -kInf) out.full_row[std::size_t(i)] = true;
      for (std::size_t c = 0; c < acc.size(); ++c) out.O(i, Index(c)) = r(acc[c] / l);
      out.lse[std::size_t(i)] = r(mi + r(std::log(l)));
      // The online form adds one rescale per tile (TOLERANCE.md (2')).
      out.tol_lse[std::size_t(i)] += kTolFactor * u_eff * double(2 * tiles);
    }
  }
}

HeadOut run_head(HeadIn in, const Knobs& k, NumberFormat a, double u_eff) {
  HeadWork w{in, k, a, u_eff};
  head_logits(w);
  head_forbidden_sets(w);
  head_working_logits(w);
  head_shifts(w);
  head_exponentials(w);
  head_row_tolerances(w);
  head_weights(w);
  head_weight_tolerances(w);
  head_outputs(w);
  head_online_form(w);
  return std::move(w.out);
}

}  // namespace

std::string num_text(double x) {
  if (x == 0) return "0";
  if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
  std::ostringstream os;
  os.precision(3);
  os << x;
  std::string s = os.str();
  const auto e = s.find("e+");
  if (e != std::string::npos) {
    std::string exp = s.substr(e + 2);
    while (exp.size() > 1 && exp[0] == '0') exp.erase(0, 1);
    s = s.substr(0, e) + "e" + exp;
  }
  const auto n = s.find("e-0");
  if (n != std::string::npos) s.erase(n + 2, 1);
  return s;
}

namespace {

/// Whether an entry of M is finite but past the range of format a.
bool overflows(const DMatrix& M, NumberFormat a) {
  for (Index i = 0; i < M.rows(); ++i)
    for (Index j = 0; j < M.cols(); ++j)
      if (std::isfinite(M(i, j)) && !std::isfinite(ref::round_to_format(a, M(i, j)))) return true;
  return false;
}

/// Whether every logit q_i . k_j is determined when Q and K are stored in
/// format a (an entry past its range as +-inf): a product of an infinity and
/// a nonzero is that signed infinity, and a sum holding infinities of one
/// sign is that infinity in any order of the code's additions; a product of
/// an infinity and 0, or infinities of both signs in one sum, is NaN
/// (IEEE 754, 7.2), which the model does not claim.
bool infinite_logits_determined(const Case& c, NumberFormat a) {
  auto stored = [a](double x) { return ref::round_to_format(a, x); };
  const Index d = std::min(c.Q.cols(), c.K.cols());
  for (Index i = 0; i < c.Q.rows(); ++i)
    for (Index j = 0; j < c.K.rows(); ++j) {
      bool pos = false, neg = false;
      for (Index t = 0; t < d; ++t) {
        const double q = stored(c.Q(i, t)), kk = stored(c.K(j, t));
        if (std::isfinite(q) && std::isfinite(kk)) continue;
        if (q == 0 || kk == 0) return false;
        ((q < 0) != (kk < 0) ? neg : pos) = true;
      }
      if (pos && neg) return false;
    }
  return true;
}

/// The prediction for a case the model makes no numeric claim on, or only
/// a refusal: a non-finite input, a d_k mismatch, an input beyond a narrow
/// arithmetic's range; nullopt for a case it computes.
std::optional<Prediction> unmodelled_input(const Case& c, const Knobs& k) {
  Prediction pr;
  if (non_finite_input(c)) {
    if (k.refuse_non_finite) {
      pr.may_refuse = true;
      pr.non_finite_answer_ok = true;
    } else if (k.swallow_non_finite) pr.any_finite_answer = true;
    else pr.no_claim = true;
    return pr;
  }
  if (dk_mismatch(c) && !k.truncate_dk) {
    if (k.refuse_dk_mismatch) pr.may_refuse = true;
    else pr.no_claim = true;
    return pr;
  }
  if (k.narrow) {
    // An input beyond the narrow type's range, but for attention's Q and K
    // (narrowed_inputs): what the code does then is not modelled.
    bool over = overflows(c.S, k.arith) || overflows(c.V, k.arith) || overflows(c.X, k.arith) ||
                overflows(c.W_O, k.arith);
    for (const auto& h : c.heads)
      over = over || overflows(h.W_Q, k.arith) || overflows(h.W_K, k.arith) || overflows(h.W_V, k.arith);
    const bool qk = overflows(c.Q, k.arith) || overflows(c.K, k.arith);
    if (over || (qk && (c.op != Operation::attention || !infinite_logits_determined(c, k.arith)))) {
      pr.no_claim = true;
      return pr;
    }
  }
  return std::nullopt;
}

/// Q and K as a narrow arithmetic stores them: an entry past its range is
/// +-inf (IEEE 754 rounding, section 4.3), the rest unchanged (rounded later,
/// as every input). Only where unmodelled_input let the case through.
Case narrowed_inputs(const Case& c, NumberFormat a) {
  Case n = c;
  for (DMatrix* M : {&n.Q, &n.K})
    for (Index i = 0; i < M->rows(); ++i)
      for (Index j = 0; j < M->cols(); ++j)
        if (!std::isfinite(ref::round_to_format(a, (*M)(i, j)))) (*M)(i, j) = ref::round_to_format(a, (*M)(i, j));
  return n;
}

/// Multi-head attention (32.2.5) under the mistake: run_head on each head's
/// projections, the heads concatenated (or each through W_O on its own),
/// then W_O. `full`: the rows some head met with no allowed key.
HeadOut multi_head_out(const Case& c, const Knobs& k, NumberFormat a, double u_eff,
                       std::vector<bool>& full) {
  auto r = [a](double x) { return ref::round_to_format(a, x); };
  HeadOut res;
  const Index T = c.X.rows(), d_model = c.X.cols();
  const Index H = Index(c.heads.size());
  const Index d_v = H ? c.heads[0].W_V.cols() : 0;
  DMatrix C = DMatrix::Zero(T, H * d_v), tolC = DMatrix::Zero(T, H * d_v),
          Cmag = DMatrix::Zero(T, H * d_v);
  full.assign(std::size_t(T), false);
  bool refuse_shape = false;
  DMatrix O = DMatrix::Zero(T, c.W_O.cols()), tolO = DMatrix::Zero(T, c.W_O.cols());
  auto project = [&](const DMatrix& W, DMatrix& mag) {
    DMatrix P(T, W.cols());
    mag = DMatrix(T, W.cols());
    for (Index i = 0; i < T; ++i)
      for (Index l = 0; l < W.cols(); ++l) {
        double s = 0, g = 0;
        for (Index t = 0; t < d_model; ++t) {
          s = r(s + r(c.X(i, t) * W(t, l)));
          g += std::abs(c.X(i, t) * W(t, l));
        }
        P(i, l) = s;
        mag(i, l) = g;
      }
    return P;
  };
  for (Index h = 0; h < H; ++h) {
    const auto& w = c.heads[std::size_t(h)];
    HeadIn in;
    DMatrix mq, mk, mv;
    in.Q = project(w.W_Q, mq);
    in.K = project(w.W_K, mk);
    const DMatrix V = project(w.W_V, mv);
    in.V = &V;
    in.V_mag = mv;
    in.V_rel = double(d_model + 2);
    in.d_v = d_v;
    in.d_model = d_model;
    in.op = c.op;
    if (k.forward_mask) in.mask = c.mask;
    const Index d = std::min(w.W_Q.cols(), w.W_K.cols());
    const double div = scale_divisor(k.scale, d, d_v, T, d_model, k.scale_width);
    in.logit_err = DMatrix(T, T);
    for (Index i = 0; i < T; ++i)
      for (Index j = 0; j < T; ++j) {
        double s = 0;
        for (Index t = 0; t < d; ++t) s += mq(i, t) * mk(j, t);
        in.logit_err(i, j) = double(2 * d_model + d + 6) * s / div;
      }
    HeadOut ho = run_head(in, k, a, u_eff);
    refuse_shape = refuse_shape || ho.refuse_shape;
    for (Index i = 0; i < T; ++i) full[std::size_t(i)] = full[std::size_t(i)] || ho.full_row[std::size_t(i)];
    const Index block = k.heads == Heads::reversed ? H - 1 - h : h;
    if (k.heads == Heads::one_wo) {
      for (Index i = 0; i < T; ++i)
        for (Index l = 0; l < c.W_O.cols(); ++l) {
          double s = 0, t = 0;
          for (Index q = 0; q < d_v; ++q) {
            s = r(s + r(ho.O(i, q) * c.W_O(q, l)));
            t += (ho.tol_O(i, q) + kTolFactor * u_eff * double(d_v + 2) * std::abs(ho.O(i, q))) *
                 std::abs(c.W_O(q, l));
          }
          O(i, l) = r(O(i, l) + s);
          tolO(i, l) += t;
        }
    } else {
      for (Index i = 0; i < T; ++i)
        for (Index q = 0; q < d_v; ++q) {
          C(i, block * d_v + q) = ho.O(i, q);
          tolC(i, block * d_v + q) = ho.tol_O(i, q);
        }
    }
  }
  if (k.heads != Heads::one_wo) {
    for (Index i = 0; i < T; ++i)
      for (Index l = 0; l < c.W_O.cols(); ++l) {
        double s = 0, t = 0;
        for (Index q = 0; q < H * d_v; ++q) {
          s = r(s + r(C(i, q) * c.W_O(q, l)));
          t += (tolC(i, q) + kTolFactor * u_eff * double(H * d_v + 2) * std::abs(C(i, q))) *
               std::abs(c.W_O(q, l));
        }
        O(i, l) = s;
        tolO(i, l) = t;
      }
  }
  res.O = O;
  res.tol_O = tolO;
  res.refuse_shape = refuse_shape;
  return res;
}

/// One head under the mistake (every operation but multi-head attention);
/// a mask ignored in the output only: A masked, O from the unmasked run.
HeadOut single_head_out(const Case& c, const Knobs& k, NumberFormat a, double u_eff) {
  HeadOut res;
  HeadIn in;
  in.op = c.op;
  in.mask = c.mask;
  if (takes_logits(c.op)) {
    in.S = &c.S;
  } else {
    const Index d = std::min(c.Q.cols(), c.K.cols());
    in.Q = c.Q.leftCols(d);
    in.K = c.K.leftCols(d);
    in.V = &c.V;
    in.V_mag = c.V.cwiseAbs();
    in.d_v = c.V.cols();
    in.d_model = c.Q.cols();
    in.tile_k = c.tile_k;
    if (k.truncate_dk && k.dk_scale_width == DkScaleWidth::q_width) in.d_scale = c.Q.cols();
    if (k.truncate_dk && k.dk_scale_width == DkScaleWidth::k_width) in.d_scale = c.K.cols();
  }
  if (k.mask == MaskUse::ignored_in_output) {
    Knobs kA = k, kO = k;
    kA.mask = MaskUse::neg_inf;
    kO.mask = MaskUse::ignored;
    res = run_head(in, kA, a, u_eff);
    if (in.V) {
      const HeadOut o = run_head(in, kO, a, u_eff);
      res.O = o.O;
      res.tol_O = o.tol_O;
    }
  } else {  // (on_values: A is already the unmasked softmax; O drops forbidden values)
    res = run_head(in, k, a, u_eff);
  }
  return res;
}

/// The rows with no allowed key (`full`), answered as the mistake answers
/// them: NaN, zeros or the uniform average, in A, O and logsumexp.
void answer_full_rows(HeadOut& res, const std::vector<bool>& full, const Case& c, const Knobs& k,
                      double u_eff) {
  const Index T_v = attn::prop::case_sizes(c).T_v;
  for (std::size_t i = 0; i < full.size(); ++i) {
    if (!full[i]) continue;
    const Index row = Index(i);
    double a_val = 0;
    switch (k.full_row) {
      case FullRow::nan: a_val = kNaN; break;
      case FullRow::zeros: a_val = 0; break;
      case FullRow::uniform: a_val = 1.0 / double(T_v); break;
      default: continue;
    }
    if (res.A.size()) {
      res.A.row(row).setConstant(a_val);
      res.tol_A.row(row).setConstant(k.full_row == FullRow::uniform ? 4 * u_eff : 0.0);
    }
    if (takes_projections(c.op)) {
      // The row's head outputs are replaced before W_O: no claim on the entry.
      res.tol_O.row(row).setConstant(kInf);
      if (k.full_row == FullRow::nan) res.O.row(row).setConstant(kNaN);
    } else if (res.O.size()) {
      for (Index l = 0; l < res.O.cols(); ++l) {
        double v = a_val;
        if (k.full_row == FullRow::uniform) {
          v = 0;
          double mag = 0;
          for (Index j = 0; j < T_v; ++j) {
            v += c.V(j, l) / double(T_v);
            mag += std::abs(c.V(j, l));
          }
          res.tol_O(row, l) = kTolFactor * u_eff * double(T_v + 2) * mag;
        } else {
          res.tol_O(row, l) = 0;
        }
        res.O(row, l) = v;
      }
    }
    if (!res.lse.empty()) {
      res.lse[i] = k.full_row == FullRow::nan ? kNaN : 0.0;
      res.tol_lse[i] = kInf;  // how the answer fills logsumexp is not modelled
    }
  }
}

/// A and O rounded to a declared storage type narrower than the accumulation
/// type, their tolerances widened by the storage roundings (see predict_in).
void round_to_storage(HeadOut& res, const Case& c, const Precision& declared) {
  const NumberFormat s = declared.storage;
  const double u_s = ref::format_unit_roundoff(s), tiny = ref::format_smallest_normal(s);
  for (Index i = 0; i < res.A.rows(); ++i)
    for (Index j = 0; j < res.A.cols(); ++j) {
      const double x = res.A(i, j);
      res.A(i, j) = ref::round_to_format(s, x);
      if (res.tol_A.size() && std::isfinite(res.tol_A(i, j)))
        res.tol_A(i, j) += 4 * u_s * std::abs(x) + 3 * u_s * tiny;
    }
  for (Index i = 0; i < res.O.rows(); ++i)
    for (Index l = 0; l < res.O.cols(); ++l) {
      const double x = res.O(i, l);
      res.O(i, l) = ref::round_to_format(s, x);
      if (!res.tol_O.size() || !std::isfinite(res.tol_O(i, l))) continue;
      double mag = 0;
      if (!takes_projections(c.op) && res.A.size() && res.A.cols() == c.V.rows())
        for (Index j = 0; j < c.V.rows(); ++j) mag += std::abs(res.A(i, j) * c.V(j, l));
      else
        mag = std::abs(x);
      res.tol_O(i, l) += 3 * u_s * std::max(mag, std::abs(x)) + 2 * u_s * tiny;
    }
}

/// The answer the mistake gives for the case's operation (O, A, logsumexp,
/// transposed or swapped as its output knob says), with the tolerances.
void set_answer(Prediction& pr, const HeadOut& res, const Case& c, const Knobs& k) {
  Outcome o = Outcome::make_result(res.O, DMatrix());
  DMatrix tol_A = res.tol_A, tol_O = res.tol_O;
  const unsigned answers = attn::prop::operation_spec(c.op).answers;
  if (answers & attn::prop::answer::weights) {
    o.A = res.A;
  } else {
    tol_A = DMatrix();
  }
  if (!(answers & attn::prop::answer::outputs)) {
    o.O = DMatrix();
    tol_O = DMatrix();
  }
  if (answers & attn::prop::answer::logsumexp) {
    o.logsumexp = DMatrix(Index(res.lse.size()), 1);
    pr.tol_lse = DMatrix(Index(res.lse.size()), 1);
    for (std::size_t i = 0; i < res.lse.size(); ++i) {
      o.logsumexp(Index(i), 0) = res.lse[i];
      pr.tol_lse(Index(i), 0) = res.tol_lse[i];
    }
  }
  if (k.output == Output::A_transposed && o.A.size()) {
    o.A = DMatrix(o.A.transpose());
    tol_A = DMatrix(tol_A.transpose());
  } else if (k.output == Output::swapped) {
    std::swap(o.A, o.O);
    std::swap(tol_A, tol_O);
  }
  pr.answer = o;
  pr.tol_A = tol_A;
  pr.tol_O = tol_O;
}

/// The heads an operation's answer is computed from under the mistake, and
/// its rows with no allowed key (`full`).
using HeadsOf = HeadOut (*)(const Case& c, const Knobs& k, NumberFormat a, double u_eff,
                            std::vector<bool>& full);

HeadOut one_head(const Case& c, const Knobs& k, NumberFormat a, double u_eff, std::vector<bool>& full) {
  HeadOut res = single_head_out(c, k, a, u_eff);
  full = res.full_row;
  return res;
}

/// An operation's heads under the knobs (none: the operation has models of
/// its own, or none, and predict() refuses it).
struct HeadRow {
  Operation op;
  HeadsOf heads;
};

constexpr HeadRow kHeadRows[] = {
    {Operation::softmax_rows, one_head},
    {Operation::masked_softmax, one_head},
    {Operation::attention, one_head},
    {Operation::attention_tiled, one_head},
    {Operation::multi_head_attention, multi_head_out},
    {Operation::causal_mask, nullptr},         // the mask builders' rules (models_masks.cpp)
    {Operation::padding_mask, nullptr},
    {Operation::batched_attention, nullptr},   // not diagnosed (its spec's `diagnosed`)
    {Operation::attention_backward, nullptr},  // the backward's models (backward_models.cpp)
};
static_assert(attn::prop::detail::one_row_per_operation(kHeadRows),
              "kHeadRows: one row per OperationSpec, in the enumerator's order");

/// predict()'s computation; `declared_bound`: tolerances with the declared
/// unit roundoff instead of the model's own (the separation tolerances).
Prediction predict_in(const Case& given, const Knobs& k, const Precision& declared, bool declared_bound) {
  if (auto unmodelled = unmodelled_input(given, k)) return *unmodelled;
  const bool narrowed = k.narrow && (overflows(given.Q, k.arith) || overflows(given.K, k.arith));
  const Case stored = narrowed ? narrowed_inputs(given, k.arith) : Case{};
  const Case& c = narrowed ? stored : given;
  Prediction pr;
  const NumberFormat declared_arith = declared.accumulate;
  const NumberFormat a = k.narrow ? k.arith : declared_arith;
  const double u_eff = declared_bound ? ref::format_unit_roundoff(declared_arith)
                                      : std::max(ref::format_unit_roundoff(a), ref::format_unit_roundoff(declared_arith));

  std::vector<bool> full;
  HeadOut res = attn::prop::detail::row_of(kHeadRows, c.op).heads(c, k, a, u_eff, full);
  if (res.refuse_shape) {
    pr.may_refuse = true;
    return pr;
  }
  const bool any_full = std::find(full.begin(), full.end(), true) != full.end();
  if (any_full && k.full_row == FullRow::refuse) {
    pr.may_refuse = true;
    return pr;
  }
  // A row whose every logit the code computed as -inf (inputs stored as
  // -inf in a narrow type, narrowed_inputs): what it answers depends on how
  // the code applies the mask there (a fill put in place stays finite, one
  // added is -inf too), on a check of the row's values (a refusal, zeros)
  // or on a fill the mistake's model leaves out (softmax1's -1e4): no claim,
  // as before the inputs were narrowed.
  if (narrowed && res.all_inf_row) {
    pr.no_claim = true;
    return pr;
  }
  if (any_full) answer_full_rows(res, full, c, k, u_eff);
  // A declared storage type narrower than the accumulation type (bfloat16
  // accumulating in float32): the weights P are stored before P V, and A and O
  // are returned in it. The model rounds its float32 A and O once; a kernel's
  // differ from them by at most 4 storage roundings for A (P, a normaliser
  // summed from the stored P, and the final rounding on both sides) and 3
  // for O relative to sum |A| |V| (TOLERANCE.md (3')-(6')), plus the
  // underflows. No safety factor here: the tolerance must stay inside the
  // property's bound (2 x 3 roundings for A), or the definition would fit
  // every answer the bound rejects.
  if (!k.narrow && declared.storage != declared.accumulate) round_to_storage(res, c, declared);
  pr.may_refuse = any_full && k.full_row == FullRow::either;
  // A layer that never passes the mask on may still check it first, refusing
  // a row with every key forbidden, or not: the mistake says nothing of it.
  if (takes_projections(c.op) && !k.forward_mask && c.mask)
    for (Index i = 0; i < c.mask->rows(); ++i)
      if (c.mask->cols() > 0 && c.mask->row(i).all()) pr.may_refuse = true;
  pr.has_answer = true;
  set_answer(pr, res, c, k);
  return pr;
}

}  // namespace

Prediction predict(const Case& c, const Knobs& k, const Precision& declared) {
  if (builds_mask(c.op)) throw std::invalid_argument("mask builders have their own models");
  if (!attn::prop::detail::row_of(kHeadRows, c.op).heads)
    throw std::invalid_argument(std::string("no knob model predicts ") + attn::prop::operation_name(c.op));
  Prediction pr = predict_in(c, k, declared, false);
  if (k.narrow && pr.has_answer && ref::format_unit_roundoff(k.arith) > ref::format_unit_roundoff(declared.accumulate)) {
    const Prediction s = predict_in(c, k, declared, true);
    pr.separation_tol_A = s.tol_A;
    pr.separation_tol_O = s.tol_O;
    pr.separation_tol_lse = s.tol_lse;
    pr.has_separation_tol = true;
  }
  return pr;
}

Model knob_model(std::string key, std::vector<Param> params, Knobs k) {
  Model m;
  m.key = std::move(key);
  m.params = std::move(params);
  m.predict = [k](const Case& c, const Precision& p) { return predict(c, k, p); };
  m.knobs = std::make_shared<const Knobs>(k);
  return m;
}

std::optional<Knobs> compose(const Knobs& a, const Knobs& b) {
  const Knobs d;
  Knobs r;
  bool clash = false, a_any = false, b_any = false;
  // One aspect: the tuple of its knobs (std::tie) in a Knobs.
  auto take = [&](auto aspect) {
    const bool in_a = aspect(a) != aspect(d), in_b = aspect(b) != aspect(d);
    clash = clash || (in_a && in_b);
    if (in_a) aspect(r) = aspect(a);
    if (in_b) aspect(r) = aspect(b);
    a_any = a_any || in_a;
    b_any = b_any || in_b;
  };
  take([](auto& k) { return std::tie(k.scale, k.scale_width); });
  take([](auto& k) { return std::tie(k.mask, k.fill, k.mult_eps); });
  take([](auto& k) { return std::tie(k.shift, k.floor, k.zero_sum_guard); });
  take([](auto& k) { return std::tie(k.norm, k.eps, k.extra_zero_logit); });
  take([](auto& k) { return std::tie(k.exp_stand_in); });
  take([](auto& k) { return std::tie(k.narrow, k.arith); });
  take([](auto& k) { return std::tie(k.full_row); });
  take([](auto& k) { return std::tie(k.truncate_dk, k.dk_scale_width, k.refuse_dk_mismatch); });
  take([](auto& k) { return std::tie(k.refuse_non_finite, k.swallow_non_finite); });
  take([](auto& k) { return std::tie(k.output); });
  take([](auto& k) { return std::tie(k.tiled); });
  take([](auto& k) { return std::tie(k.heads, k.forward_mask); });
  if (clash || !a_any || !b_any) return std::nullopt;
  return r;
}

}  // namespace attn::mis::detail

#pragma once
// Shared helpers of the library-level properties (properties/tests/lib/).
//
// Generators follow properties/src/generators.cpp: every draw happens inside
// an rc::prop, shapes start at 1 and shrink towards 1, values lie on a binary
// grid (exact in the scalar type) and shrink towards 0 through 0, -1, 1, ...;
// each regime is reported with RC_TAG. Also here: conversions between the
// library's and the oracle's matrices, and the a-priori error bound used to
// hold multi-head attention (section 32.2.5) against the 50-digit oracle.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "attn/attn.hpp"
#include "attn/ref/error_bound.hpp"
#include "attn/ref/multi_head_bound.hpp"
#include "attn/ref/oracle_extras.hpp"

namespace attn::libprop {

namespace ref = ::attn::ref;
using ref::DMatrix;

// ---------------------------------------------------------------- generators

/// Integers in [-m, m], shrinking towards 0 through 0, -1, 1, -2, 2, ...
inline rc::Gen<std::int64_t> zigzag(std::int64_t m) {
  return rc::gen::map(rc::gen::inRange<std::int64_t>(0, 2 * m + 1), [](std::int64_t z) {
    return z % 2 == 0 ? z / 2 : -(z + 1) / 2;
  });
}

/// Value regimes of the inputs. The first one is where shrinking goes.
enum class Values {
  small_integers,  ///< integers in [-3, 3]: many ties, exact products
  grid,            ///< k / 2^18, |k| <= 2^19: reals in [-2, 2] with 20 bits, exact in float;
                   ///< d_model <= 8 products of two of them are exact in double, not in float
  fine_grid,       ///< k / 2^44, |k| <= 2^45: reals in [-2, 2] with 46 bits (double only);
                   ///< the projections X W round in double
};

inline const char* values_tag(Values v) {
  switch (v) {
    case Values::small_integers: return "values: small integers";
    case Values::grid: return "values: reals on a 2^-18 grid";
    case Values::fine_grid: return "values: reals on a 2^-44 grid (projections round)";
  }
  return "";
}

/// How RapidCheck shows a drawn regime in a counterexample.
inline void showValue(Values v, std::ostream& os) { os << values_tag(v); }

/// Draws a value regime (fine_grid only when the scalar type is double) and tags it.
inline Values draw_values(bool allow_fine_grid) {
  const Values v = allow_fine_grid
                       ? *rc::gen::element(Values::small_integers, Values::grid, Values::fine_grid)
                       : *rc::gen::element(Values::small_integers, Values::grid);
  RC_TAG(values_tag(v));
  return v;
}

/// A rows x cols matrix of the regime, times 2^-scale_exp (exact: a power of two).
inline DMatrix draw_matrix(Index rows, Index cols, Values v, int scale_exp = 0) {
  std::int64_t m = 3;
  int grid_exp = 0;
  if (v == Values::grid) {
    m = std::int64_t{1} << 19;
    grid_exp = 18;
  } else if (v == Values::fine_grid) {
    m = std::int64_t{1} << 45;
    grid_exp = 44;
  }
  const auto k = *rc::gen::container<std::vector<std::int64_t>>(std::size_t(rows * cols), zigzag(m));
  DMatrix M(rows, cols);
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < cols; ++j)
      M(i, j) = std::ldexp(double(k[std::size_t(i * cols + j)]), -grid_exp - scale_exp);
  return M;
}

/// A size in [min, max], shrinking towards min. It grows with RapidCheck's size
/// three times as fast as a plain inRange, so the whole range is open from a
/// third of the run on (otherwise a third of the cases would have T = 1).
inline Index draw_size_from(Index min, Index max) {
  return *rc::gen::scale(3.0, rc::gen::inRange<Index>(min, max + 1));
}

/// A size in [1, max], shrinking towards 1.
inline Index draw_size(Index max) { return draw_size_from(1, max); }

enum class MaskKind { none, causal, padding, random };

inline const char* mask_tag(MaskKind k) {
  switch (k) {
    case MaskKind::none: return "mask: none";
    case MaskKind::causal: return "mask: causal";
    case MaskKind::padding: return "mask: padding";
    case MaskKind::random: return "mask: random";
  }
  return "";
}

inline void showValue(MaskKind k, std::ostream& os) { os << mask_tag(k); }

/// A T_q x T_v mask (true = forbidden) or none, tagged by kind. Every row keeps
/// at least one allowed key (a row left empty gets key i mod T_v back), so the
/// operations are defined (Lemma 2 excludes fully forbidden rows).
inline std::optional<Mask> draw_mask(Index T_q, Index T_v) {
  const MaskKind kind =
      *rc::gen::element(MaskKind::none, MaskKind::causal, MaskKind::padding, MaskKind::random);
  RC_TAG(mask_tag(kind));
  if (kind == MaskKind::none) return std::nullopt;
  Mask M = Mask::Constant(T_q, T_v, false);
  if (kind == MaskKind::causal) {
    for (Index i = 0; i < T_q; ++i)
      for (Index j = 0; j < T_v; ++j) M(i, j) = j > i;
  } else if (kind == MaskKind::padding) {
    const Index key_length = *rc::gen::inRange<Index>(1, T_v + 1);
    for (Index i = 0; i < T_q; ++i)
      for (Index j = 0; j < T_v; ++j) M(i, j) = j >= key_length;
  } else {
    const auto bits = *rc::gen::container<std::vector<bool>>(std::size_t(T_q * T_v),
                                                             rc::gen::arbitrary<bool>());
    for (Index i = 0; i < T_q; ++i)
      for (Index j = 0; j < T_v; ++j) M(i, j) = bits[std::size_t(i * T_v + j)];
  }
  for (Index i = 0; i < T_q; ++i)
    if (M.row(i).all()) M(i, i % T_v) = false;
  return M;
}

/// A permutation of 0 .. n-1 from its Lehmer code; shrinks towards the identity.
/// perm[t] is the row of the original that lands at row t.
inline std::vector<Index> draw_permutation(Index n) {
  std::vector<Index> rest(static_cast<std::size_t>(n));
  for (Index t = 0; t < n; ++t) rest[std::size_t(t)] = t;
  std::vector<Index> perm;
  for (Index t = 0; t < n; ++t) {
    // Not scaled by RapidCheck's size: small sizes would give only the identity.
    const Index c = *rc::gen::resize(rc::kNominalSize, rc::gen::inRange<Index>(0, n - t));
    perm.push_back(rest[std::size_t(c)]);
    rest.erase(rest.begin() + c);
  }
  return perm;
}

// --------------------------------------------------------------- conversions

template <class T>
Matrix<T> to_type(const DMatrix& M) {
  return M.cast<T>();
}

template <class T>
DMatrix to_double(const Matrix<T>& M) {
  return M.template cast<double>();
}

/// Library weights of scalar T from the oracle's (double) weights.
template <class T>
MultiHeadWeights<T> to_lib_weights(const ref::MultiHeadWeights& w) {
  MultiHeadWeights<T> out;
  for (const ref::HeadWeights& hw : w.heads)
    out.heads.push_back({to_type<T>(hw.W_Q), to_type<T>(hw.W_K), to_type<T>(hw.W_V)});
  out.W_O = to_type<T>(w.W_O);
  return out;
}

/// Self-attention of one head's projections, formed in T as a user would:
/// attention(X W_Q, X W_K, X W_V, mask).
template <class T>
AttentionResult<T> attention_of_projections(const Matrix<T>& X, const Matrix<T>& W_Q,
                                            const Matrix<T>& W_K, const Matrix<T>& W_V,
                                            const std::optional<Mask>& mask) {
  const Matrix<T> Q = X * W_Q;
  const Matrix<T> K = X * W_K;
  const Matrix<T> V = X * W_V;
  return attention<T>(Q, K, V, mask);
}

/// First entry where A and B differ (operator==, so +0 and -0 count as equal),
/// as text for RC_LOG; empty if they are equal with equal shapes.
template <class M1, class M2>
std::string first_difference(const M1& A, const M2& B) {
  std::ostringstream os;
  os.precision(17);
  if (A.rows() != B.rows() || A.cols() != B.cols()) {
    os << "shapes differ: " << A.rows() << "x" << A.cols() << " vs " << B.rows() << "x"
       << B.cols();
    return os.str();
  }
  for (Index i = 0; i < A.rows(); ++i)
    for (Index j = 0; j < A.cols(); ++j)
      if (!(A(i, j) == B(i, j))) {
        os << "entry (" << i << ", " << j << "): " << double(A(i, j)) << " vs " << double(B(i, j));
        return os.str();
      }
  return "";
}

// ------------------------------------------------ counterexamples, in full

/// A matrix at full precision, one row per line, for RC_LOG.
template <class M>
std::string show_matrix(const M& m) {
  std::ostringstream os;
  os << m.template cast<double>().format(
      Eigen::IOFormat(Eigen::FullPrecision, 0, ", ", "\n", "  [", "]"));
  return os.str();
}

/// Logs the inputs of a self-attention case (shown by RapidCheck only on failure).
inline void log_inputs(const DMatrix& X, const ref::MultiHeadWeights& w,
                       const std::optional<Mask>& mask) {
  RC_LOG() << "X (" << X.rows() << "x" << X.cols() << ") =\n" << show_matrix(X) << "\n";
  for (std::size_t i = 0; i < w.heads.size(); ++i) {
    RC_LOG() << "head " << i << ": W_Q =\n" << show_matrix(w.heads[i].W_Q) << "\n";
    RC_LOG() << "head " << i << ": W_K =\n" << show_matrix(w.heads[i].W_K) << "\n";
    RC_LOG() << "head " << i << ": W_V =\n" << show_matrix(w.heads[i].W_V) << "\n";
  }
  if (w.W_O.size() > 0) RC_LOG() << "W_O =\n" << show_matrix(w.W_O) << "\n";
  if (mask)
    RC_LOG() << "mask (true = forbidden) =\n" << show_matrix(mask->cast<int>()) << "\n";
  else
    RC_LOG() << "mask: none\n";
}

// ----------------------------------------------------------- the error bound

/// The precision model of the scalar type (unit roundoff, smallest normal).
using Precision = ref::PrecisionModel;

template <class T>
Precision precision_of() {
  return {double(std::numeric_limits<T>::epsilon()) / 2, double(std::numeric_limits<T>::min()), 0};
}

/// One head's bound (reference/include/attn/ref/multi_head_bound.hpp).
using ref::head_output_bound;
using ref::HeadBound;

/// Bound (with the safety factor) on |multi_head_attention(X, w, mask) - exact|
/// per output entry, for self-attention computed in precision p.
inline DMatrix multi_head_bound(const DMatrix& X, const ref::MultiHeadWeights& w,
                                const std::optional<Mask>& mask, Precision p) {
  return ref::multi_head_error_bound(X, X, w, mask, p);
}

/// Result of holding a computed matrix against the exact one under a bound.
struct Comparison {
  bool ok = true;
  Index row = -1, col = -1;  ///< the entry with the largest error / bound
  double computed = 0, exact = 0, error = 0, bound = 0;
  double worst_ratio = 0;  ///< max over entries of error / bound
  std::string what;        ///< a shape mismatch or a non-finite entry
};

/// |computed - exact| <= bound entry by entry; the difference is taken in Real
/// (50 digits), so rounding the exact value to double adds nothing.
inline Comparison compare_to_exact(const DMatrix& computed, const ref::RealMatrix& exact,
                                   const DMatrix& bound) {
  Comparison c;
  if (computed.rows() != exact.rows || computed.cols() != exact.cols ||
      bound.rows() != exact.rows || bound.cols() != exact.cols) {
    c.ok = false;
    c.what = "shape " + std::to_string(computed.rows()) + "x" + std::to_string(computed.cols()) +
             " but the exact result is " + std::to_string(exact.rows) + "x" +
             std::to_string(exact.cols);
    return c;
  }
  for (Index i = 0; i < exact.rows; ++i)
    for (Index j = 0; j < exact.cols; ++j) {
      if (!std::isfinite(computed(i, j))) {
        c.ok = false;
        c.what = "non-finite entry (" + std::to_string(i) + ", " + std::to_string(j) + ")";
        return c;
      }
      const double err =
          static_cast<double>(abs(ref::Real(computed(i, j)) - exact(i, j)));
      const double b = bound(i, j);
      if (!std::isfinite(b)) {
        // The analysis gave up (rho_Z >= 1/2): a comparison with it would prove nothing.
        c.ok = false;
        c.what = "the bound is not finite at (" + std::to_string(i) + ", " + std::to_string(j) + ")";
        return c;
      }
      const double ratio = err == 0 ? 0 : (b > 0 ? err / b : std::numeric_limits<double>::infinity());
      if (!(err <= b)) c.ok = false;
      if (c.row < 0 || ratio > c.worst_ratio) {
        c.worst_ratio = ratio;
        c.row = i;
        c.col = j;
        c.computed = computed(i, j);
        c.exact = static_cast<double>(exact(i, j));
        c.error = err;
        c.bound = b;
      }
    }
  return c;
}

inline std::string describe(const Comparison& c) {
  std::ostringstream os;
  os.precision(17);
  if (!c.what.empty()) return c.what;
  os << "worst entry (" << c.row << ", " << c.col << "): computed " << c.computed << ", exact "
     << c.exact << ", |error| " << c.error << " vs bound " << c.bound << " (ratio "
     << c.worst_ratio << ")";
  return os.str();
}

}  // namespace attn::libprop

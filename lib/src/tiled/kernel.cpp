// The compute kernel of attention_tiled: Dao et al. 2022, "FlashAttention",
// arXiv:2205.14135, Algorithm 1 (online softmax over key tiles), with the
// products on tiles done by Eigen's GEMM, a vectorised exp and the query
// tiles shared among OpenMP threads.
//
// Compiled once per instruction set: CMake defines ATTN_TILED_ISA (baseline,
// avx2 or avx512), the matching -m flags, and -DEigen=attn_eigen_<isa> so
// that every Eigen symbol of this translation unit has a name of its own
// (see kernel.hpp). Keep this file free of std:: templates that the linker
// could share with other translation units (containers, smart pointers,
// streams): the test lib/kernel_symbols checks that every weak symbol of the
// object is Eigen's, renamed.
#define EIGEN_DONT_PARALLELIZE  // the threads are ours, over query tiles
#include <Eigen/Core>
#include <omp.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <new>

#include "kernel.hpp"

#ifndef ATTN_TILED_ISA
#error "ATTN_TILED_ISA must name the instruction set (baseline, avx2, avx512)"
#endif
#define ATTN_TILED_CAT2(a, b) a##b
#define ATTN_TILED_CAT(a, b) ATTN_TILED_CAT2(a, b)
#define ATTN_TILED_RUN ATTN_TILED_CAT(run_, ATTN_TILED_ISA)

namespace attn::detail::tiled {
namespace {

template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using Col = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <class T>
using ConstMap = Eigen::Map<const Mat<T>>;

// ---------------------------------------------------------------------------
// exp on x <= 0, branch-free so that the loops below vectorise.
//
// x = n ln 2 + r with n = round(x / ln 2), |r| <= ln(2)/2 (Cody and Waite's
// reduction: ln 2 split as hi + lo with hi exact in 32 bits, so n hi is exact
// for |n| < 2^11 and x - n hi is exact); exp(r) = 1 + r + r^2 P(r) with P the
// Taylor polynomial of (exp(r) - 1 - r) / r^2, degree 11 (truncation below
// 5e-18 relative); the result is (1 + q) 2^n, 2^n built from its bits.
// Arguments below log(realmin) give 0 (the error model's underflow term,
// reference/TOLERANCE.md step (5): an exponential that underflows loses at
// most realmin). Measured against long double expl over 2^26 arguments in
// [-708, 0]: largest error 0.51 ulp (double); the float version below rounds
// the double result once more. See reference/TOLERANCE.md step (3).

constexpr double kLn2Hi = 0x1.62e42fee00000p-1;  // ln 2 to 32 bits
constexpr double kLn2Lo = 0x1.a39ef35793c76p-33;  // ln 2 - kLn2Hi
constexpr double kLog2e = 0x1.71547652b82fep0;    // 1 / ln 2
constexpr double kShifter = 0x1.8p52;             // x + 1.5 * 2^52 rounds x to an integer

constexpr double inv_factorial(int k) {
  double f = 1;
  for (int i = 2; i <= k; ++i) f *= i;  // exact up to 18!
  return 1.0 / f;
}

/// exp(x) for log(realmin) <= x <= 0 (and 0 below), Taylor terms up to r^degree.
template <int degree>
inline double exp_reduced(double x, double lowest) {
  const double xc = x < lowest ? lowest : x;  // also maps -Inf to a finite argument
  const double t = xc * kLog2e + kShifter;
  const double n = t - kShifter;
  const double r = (xc - n * kLn2Hi) - n * kLn2Lo;
  double p = inv_factorial(degree);
  // Horner from r^degree down to r^2 (unrolled by the compiler: degree is constant).
  for (int k = degree - 1; k >= 2; --k) p = p * r + inv_factorial(k);
  const double q = r + (r * r) * p;
  const std::int64_t bits = std::bit_cast<std::int64_t>(t) - std::bit_cast<std::int64_t>(kShifter);
  const double two_n = std::bit_cast<double>((bits + 1023) << 52);
  const double y = (1.0 + q) * two_n;
  return x < lowest ? 0.0 : y;
}

inline double exp_nonpositive(double x) {
  return exp_reduced<13>(x, -0x1.6232bdd7abcd2p9);  // log(2^-1022) = -708.396...
}
inline float exp_nonpositive(float x) {
  // In double, then one rounding to float: within 0.5 ulp of float plus 2e-10.
  return static_cast<float>(exp_reduced<8>(static_cast<double>(x), -0x1.5d589f2fe5107p6));  // log(2^-126)
}

// ---------------------------------------------------------------------------

enum class Coverage { all_allowed, mixed, all_forbidden };

/// How the mask covers the block rows [q0, q0+nq) x columns [k0, k0+nk).
inline Coverage coverage(const bool* mask, index_t T_v, index_t q0, index_t nq, index_t k0,
                         index_t nk) {
  if (!mask) return Coverage::all_allowed;
  index_t forbidden = 0;
  for (index_t r = 0; r < nq; ++r) {
    const bool* row = mask + (q0 + r) * T_v + k0;
    index_t count = 0;
#pragma omp simd reduction(+ : count)
    for (index_t j = 0; j < nk; ++j) count += row[j] ? 1 : 0;
    forbidden += count;
  }
  if (forbidden == 0) return Coverage::all_allowed;
  return forbidden == nq * nk ? Coverage::all_forbidden : Coverage::mixed;
}

/// Per-thread buffers: one tile of logits and weights, the query tile's
/// accumulator and its running max and sum.
template <class T>
struct Scratch {
  Mat<T> S, P, acc;
  Col<T> m, l;
};

/// The first logit of the tile, in row-major order, that is NaN or +Inf.
template <class T>
bool find_non_finite_logit(const Mat<T>& S, index_t& row, index_t& col) {
  for (index_t r = 0; r < S.rows(); ++r)
    for (index_t c = 0; c < S.cols(); ++c) {
      const T s = S(r, c);
      if (std::isnan(s) || s == std::numeric_limits<T>::infinity()) {
        row = r;
        col = c;
        return true;
      }
    }
  return false;
}

/// One row of a tile: weights exp(s_j c - m_new) at allowed entries, exact 0
/// elsewhere; updates m, l and rescales the accumulator row. Returns false
/// if the row has no allowed entry in this tile (its weights are set to 0).
template <class T>
bool softmax_row(const T* s, const bool* forbid, index_t nk, T c, T* p, T& m, T& l, Mat<T>& acc,
                 index_t r) {
  constexpr T neg_inf = -std::numeric_limits<T>::infinity();
  T mx = neg_inf;
  if (forbid) {
#pragma omp simd reduction(max : mx)
    for (index_t j = 0; j < nk; ++j) {
      const T v = forbid[j] ? neg_inf : s[j];
      mx = v > mx ? v : mx;
    }
  } else {
#pragma omp simd reduction(max : mx)
    for (index_t j = 0; j < nk; ++j) mx = s[j] > mx ? s[j] : mx;
  }
  if (mx == neg_inf) {  // every entry forbidden or -Inf: adds nothing, m stays
    for (index_t j = 0; j < nk; ++j) p[j] = T(0);
    return false;
  }
  // max_j fl(s_j c) = fl(max_j s_j c): rounding is monotonic and c > 0.
  const T m_new = m > mx * c ? m : mx * c;
  T sum = 0;
  if (forbid) {
#pragma omp simd reduction(+ : sum)
    for (index_t j = 0; j < nk; ++j) {
      const T e = exp_nonpositive(s[j] * c - m_new);
      const T w = (forbid[j] || s[j] == neg_inf) ? T(0) : e;  // Lemma 2: exact 0
      p[j] = w;
      sum += w;
    }
  } else {
#pragma omp simd reduction(+ : sum)
    for (index_t j = 0; j < nk; ++j) {
      const T e = exp_nonpositive(s[j] * c - m_new);
      const T w = s[j] == neg_inf ? T(0) : e;
      p[j] = w;
      sum += w;
    }
  }
  if (m == neg_inf) {
    l = sum;  // the first tile with an allowed entry: nothing to rescale
  } else {
    const T rescale = std::exp(m - m_new);  // one rescale per tile that raises the max
    if (rescale != T(1)) acc.row(r) *= rescale;
    l = rescale * l + sum;
  }
  m = m_new;
  return true;
}

/// Query rows [q0, q0 + nq): every key tile in turn, then O and logsumexp.
template <class T>
Status query_tile(const Problem<T>& pb, index_t q0, index_t nq, Scratch<T>& w) {
  constexpr T neg_inf = -std::numeric_limits<T>::infinity();
  const T c = T(1) / std::sqrt(static_cast<T>(pb.d_k));  // reciprocal and product: step (1)
  const ConstMap<T> Qt(pb.Q + q0 * pb.d_k, nq, pb.d_k);
  w.acc.setZero(nq, pb.d_v);
  w.m.setConstant(nq, neg_inf);
  w.l.setZero(nq);
  for (index_t k0 = 0; k0 < pb.T_v; k0 += pb.tile_k) {
    const index_t nk = pb.tile_k < pb.T_v - k0 ? pb.tile_k : pb.T_v - k0;
    const Coverage cov = coverage(pb.mask, pb.T_v, q0, nq, k0, nk);
    // A wholly forbidden tile adds exactly nothing; it is computed only when
    // a logit could overflow (its NaN/+Inf must still be reported).
    if (cov == Coverage::all_forbidden && pb.skip_forbidden_tiles && !pb.check_logits) continue;
    const ConstMap<T> Kt(pb.K + k0 * pb.d_k, nk, pb.d_k);
    w.S.resize(nq, nk);
    w.S.noalias() = Qt * Kt.transpose();  // unscaled logits Q K^T
    if (pb.check_logits) {
      index_t r = 0, j = 0;
      if (find_non_finite_logit(w.S, r, j)) {
        Status st;
        st.kind = Status::non_finite_logit;
        st.row = q0 + r;
        st.col = k0 + j;
        st.value = static_cast<double>(w.S(r, j));  // NaN or +Inf, scaled or not
        return st;
      }
    }
    if (cov == Coverage::all_forbidden) continue;
    w.P.resize(nq, nk);
    bool any = false;
    for (index_t r = 0; r < nq; ++r) {
      const bool* forbid =
          cov == Coverage::mixed ? pb.mask + (q0 + r) * pb.T_v + k0 : static_cast<const bool*>(nullptr);
      any |= softmax_row<T>(&w.S(r, 0), forbid, nk, c, &w.P(r, 0), w.m(r), w.l(r), w.acc, r);
    }
    if (any) w.acc.noalias() += w.P * ConstMap<T>(pb.V + k0 * pb.d_v, nk, pb.d_v);
  }
  for (index_t r = 0; r < nq; ++r)
    if (w.m(r) == neg_inf) {
      Status st;
      st.kind = Status::fully_masked_row;
      st.row = q0 + r;
      return st;
    }
  Eigen::Map<Mat<T>> O(pb.O + q0 * pb.d_v, nq, pb.d_v);
  for (index_t r = 0; r < nq; ++r) {
    O.row(r) = w.acc.row(r) / w.l(r);  // l >= exp(0) = 1: the row's maximum contributes 1
    pb.logsumexp[q0 + r] = w.m(r) + std::log(w.l(r));
  }
  return {};
}

/// Whether status a comes before b in the serial order: a NaN/+Inf logit
/// first (by query tile), then a fully forbidden row (lowest first).
bool before(const Status& a, const Status& b) {
  if (a.kind == Status::ok) return false;
  if (b.kind == Status::ok) return true;
  if (a.kind != b.kind) return a.kind == Status::non_finite_logit;
  return a.row < b.row;
}

template <class T>
Status run_all(const Problem<T>& pb) {
  const index_t tiles = (pb.T_q + pb.tile_q - 1) / pb.tile_q;
  const int threads = pb.threads >= 1 ? pb.threads : omp_get_max_threads();
  Status first;
  bool out_of_memory = false;
#pragma omp parallel num_threads(threads) if (threads > 1 && tiles > 1)
  {
    Scratch<T> w;  // allocated on first use, inside the try below
#pragma omp for schedule(dynamic, 1)
    for (index_t t = 0; t < tiles; ++t) {
      const index_t q0 = t * pb.tile_q;
      const index_t nq = pb.tile_q < pb.T_q - q0 ? pb.tile_q : pb.T_q - q0;
      Status st;
      try {  // no exception may leave an OpenMP region
        st = query_tile(pb, q0, nq, w);
      } catch (const std::bad_alloc&) {
#pragma omp atomic write
        out_of_memory = true;
      }
      if (st.kind != Status::ok) {
#pragma omp critical(attn_tiled_status)
        if (before(st, first)) first = st;
      }
    }
  }
  if (out_of_memory) throw std::bad_alloc();
  return first;
}

}  // namespace

Status ATTN_TILED_RUN(const Problem<float>& p) { return run_all(p); }
Status ATTN_TILED_RUN(const Problem<double>& p) { return run_all(p); }

}  // namespace attn::detail::tiled

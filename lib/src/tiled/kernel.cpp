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
#include <cstring>
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
// reduction: ln 2 split as hi + lo with n hi exact, so x - n hi is exact);
// exp(r) = 1 + r + r^2 P(r) with P the Taylor polynomial of
// (exp(r) - 1 - r) / r^2 (truncation below 5e-18 relative in double, degree
// 13, and 3e-10 in float, degree 8); the result is exp(r) 2^n, 2^n built
// from its bits. The same code in float and double, so that a vector holds
// 16 floats. Arguments below log(realmin) give 0 (the error model's
// underflow term, reference/TOLERANCE.md step (5): an exponential that
// underflows loses at most realmin). Measured against long double expl:
// double, 2^25 arguments in each of [-0.35, 0], [-1, 0], [-50, 0],
// [-708.39, 0]: largest error 0.70 ulp; float, every float in
// [log(realmin), 0]: see reference/TOLERANCE.md step (3) (below 0.7 ulp).
// Within the one ulp that step (3) assumes, baseline and FMA builds alike.

/// The constants of exp_nonpositive for one type.
template <class T>
struct ExpConstants;
template <>
struct ExpConstants<double> {
  using Bits = std::int64_t;
  static constexpr double ln2_hi = 0x1.62e42fee00000p-1;  // ln 2 to 32 bits: n ln2_hi exact, |n| < 2^11
  static constexpr double ln2_lo = 0x1.a39ef35793c76p-33;  // ln 2 - ln2_hi
  static constexpr double log2e = 0x1.71547652b82fep0;     // 1 / ln 2
  static constexpr double shifter = 0x1.8p52;              // x + 1.5 2^52 rounds x to an integer
  static constexpr double lowest = -0x1.6232bdd7abcd2p9;   // log(2^-1022) = log(realmin)
  static constexpr int mantissa = 52, bias = 1023, degree = 13;  // Taylor terms up to r^13
};
template <>
struct ExpConstants<float> {
  using Bits = std::int32_t;
  static constexpr float ln2_hi = 0x1.62e4p-1f;      // ln 2 to 17 bits: n ln2_hi exact, |n| < 2^7
  static constexpr float ln2_lo = 0x1.7f7d1cp-20f;   // ln 2 - ln2_hi
  static constexpr float log2e = 0x1.715476p0f;
  static constexpr float shifter = 0x1.8p23f;
  static constexpr float lowest = -0x1.5d589ep6f;    // just above log(2^-126) = log(realmin)
  static constexpr int mantissa = 23, bias = 127, degree = 8;  // Taylor terms up to r^8
};

/// 1/k! for k = 0 .. 18, computed at compile time (k! is exact in double up to 18!).
struct InverseFactorials {
  double v[19];
};
constexpr InverseFactorials make_inverse_factorials() {
  InverseFactorials t{};
  double f = 1;
  for (int k = 0; k < 19; ++k) {
    if (k > 1) f *= k;
    t.v[k] = 1.0 / f;
  }
  return t;
}
inline constexpr InverseFactorials kInvFact = make_inverse_factorials();

/// P(r) = sum_{k=2}^{degree} r^(k-2) / k!, by Horner, unrolled at compile time.
template <class T, int k, int degree>
inline T taylor_tail(T r) {
  if constexpr (k == degree)
    return static_cast<T>(kInvFact.v[k]);
  else
    return static_cast<T>(kInvFact.v[k]) + r * taylor_tail<T, k + 1, degree>(r);
}

/// exp(x) for log(realmin) <= x <= 0, and 0 below (-Inf included).
template <class T>
inline T exp_nonpositive(T x) {
  using C = ExpConstants<T>;
  using Bits = typename C::Bits;
  const T xc = x < C::lowest ? C::lowest : x;  // also maps -Inf to a finite argument
  const T t = xc * C::log2e + C::shifter;
  const T n = t - C::shifter;
  const T r_hi = xc - n * C::ln2_hi;  // exact
  const T r_lo = -(n * C::ln2_lo);
  const T r = r_hi + r_lo;
  const T p = taylor_tail<T, 2, C::degree>(r);
  // 1 + r_hi split exactly into s + e (Fast2Sum, |1| >= |r_hi|), so that the
  // only large rounding is the last addition: 0.5 ulp plus small terms.
  const T s = T(1) + r_hi;
  const T e = (T(1) - s) + r_hi;
  const Bits bits = std::bit_cast<Bits>(t) - std::bit_cast<Bits>(C::shifter);  // n
  const T two_n = std::bit_cast<T>(static_cast<Bits>((bits + C::bias) << C::mantissa));
  const T y = (s + (e + (r_lo + (r * r) * p))) * two_n;
  return x < C::lowest ? T(0) : y;
}

// ---------------------------------------------------------------------------

enum class Coverage { all_allowed, mixed, all_forbidden };

/// How the mask covers the block rows [q0, q0+nq) x columns [k0, k0+nk).
inline Coverage coverage(const bool* mask, index_t T_v, index_t q0, index_t nq, index_t k0,
                         index_t nk) {
  if (!mask) return Coverage::all_allowed;
  // memchr (vectorised in libc) on the bytes of the bools (0 or 1): a row
  // with both values makes the tile mixed, and the scan stops there.
  bool any_forbidden = false, any_allowed = false;
  for (index_t r = 0; r < nq && !(any_forbidden && any_allowed); ++r) {
    const bool* row = mask + (q0 + r) * T_v + k0;
    static_assert(sizeof(bool) == 1);
    if (!any_forbidden) any_forbidden = std::memchr(row, 1, std::size_t(nk)) != nullptr;
    if (!any_allowed) any_allowed = std::memchr(row, 0, std::size_t(nk)) != nullptr;
  }
  if (!any_forbidden) return Coverage::all_allowed;
  return any_allowed ? Coverage::mixed : Coverage::all_forbidden;
}

/// Per-thread buffers: one tile of logits and weights, the query tile's
/// accumulator and its running max and sum.
template <class T>
struct Scratch {
  Mat<T> S, P, acc;
  Col<T> m, l;
};

/// The first allowed logit of the tile, in row-major order, that is NaN or
/// +Inf (the rule for logits, lib/src/logit_rule.hpp: forbidden entries are
/// never read). `mask` points at the tile's first entry, rows `stride` apart;
/// null: no mask.
template <class T>
bool find_non_finite_logit(const Mat<T>& S, const bool* mask, index_t stride, index_t& row,
                           index_t& col) {
  for (index_t r = 0; r < S.rows(); ++r)
    for (index_t c = 0; c < S.cols(); ++c) {
      if (mask && mask[r * stride + c]) continue;
      const T s = S(r, c);
      if (std::isnan(s) || s == std::numeric_limits<T>::infinity()) {
        row = r;
        col = c;
        return true;
      }
    }
  return false;
}

/// One row of a tile whose forbidden logits are -Inf already: weights
/// exp(s_j - m_new) of the scaled logits where finite, exact 0 at -Inf; updates m, l
/// and rescales the accumulator row. Returns false if the row has no allowed
/// entry in this tile (its weights are set to 0).
template <class T>
bool softmax_row(const T* s, index_t nk, T* p, T& m, T& l, Mat<T>& acc, index_t r) {
  constexpr T neg_inf = -std::numeric_limits<T>::infinity();
  // A plain map (no reduction clause, no bool loads: GCC 12 leaves those
  // scalar); Eigen's max and sum reduce.
  Eigen::Map<Col<T>> pv(p, nk);
  const T mx = Eigen::Map<const Col<T>>(s, nk).maxCoeff();
  if (mx == neg_inf) {  // every entry forbidden or -Inf: adds nothing, m stays
    pv.setZero();
    return false;
  }
  const T m_new = m > mx ? m : mx;
#pragma omp simd
  for (index_t j = 0; j < nk; ++j) {
    const T sj = s[j];
    // s_j - m_new <= 0, and exactly 0 at the maximum (TOLERANCE.md step (2)).
    const T e = exp_nonpositive(sj - m_new);
    p[j] = sj == neg_inf ? T(0) : e;  // Lemma 2: exact 0
  }
  const T sum = pv.sum();
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
  const T c = pb.scale;  // 1/sqrt(d_k) by default: a reciprocal and a product, step (1)
  const ConstMap<T> Qt(pb.Q + q0 * pb.d_k, nq, pb.d_k);
  w.acc.setZero(nq, pb.d_v);
  w.m.setConstant(nq, neg_inf);
  w.l.setZero(nq);
  for (index_t k0 = 0; k0 < pb.T_v; k0 += pb.tile_k) {
    const index_t nk = pb.tile_k < pb.T_v - k0 ? pb.tile_k : pb.T_v - k0;
    const Coverage cov = coverage(pb.mask, pb.T_v, q0, nq, k0, nk);
    // A wholly forbidden tile adds exactly nothing, and its logits are never
    // read (the rule for logits), so it is not computed.
    if (cov == Coverage::all_forbidden && pb.skip_forbidden_tiles) continue;
    const ConstMap<T> Kt(pb.K + k0 * pb.d_k, nk, pb.d_k);
    w.S.resize(nq, nk);
    w.S.noalias() = Qt * Kt.transpose();  // unscaled logits Q K^T
    // The scale in a pass of its own: a product fused into the subtraction
    // of the max (FMA contraction) could make s_j c - m positive. It comes
    // before the mask, so that -Inf at forbidden entries survives any sign of c,
    // and before the check, which judges the logits the softmax sees.
    w.S *= c;
    if (pb.check_logits) {
      index_t r = 0, j = 0;
      const bool* tile_mask = pb.mask ? pb.mask + q0 * pb.T_v + k0 : nullptr;
      if (find_non_finite_logit(w.S, tile_mask, pb.T_v, r, j)) {
        Status st;
        st.kind = Status::non_finite_logit;
        st.row = q0 + r;
        st.col = k0 + j;
        st.value = static_cast<double>(w.S(r, j));  // NaN or +Inf
        return st;
      }
    }
    if (cov == Coverage::all_forbidden) continue;
    w.P.resize(nq, nk);
    bool any = false;
    if (cov == Coverage::mixed)  // forbidden logits become -Inf (masked_softmax's rule)
      for (index_t r = 0; r < nq; ++r) {
        const bool* forbid = pb.mask + (q0 + r) * pb.T_v + k0;
        T* s = &w.S(r, 0);
        // Run by run (memchr finds each end): a causal row is one run.
        const void* base = forbid;
        index_t j = 0;
        while (j < nk) {
          const void* f = std::memchr(static_cast<const char*>(base) + j, 1, std::size_t(nk - j));
          if (!f) break;
          const index_t a = static_cast<const char*>(f) - static_cast<const char*>(base);
          const void* g = std::memchr(static_cast<const char*>(base) + a, 0, std::size_t(nk - a));
          const index_t b = g ? static_cast<const char*>(g) - static_cast<const char*>(base) : nk;
          for (index_t k = a; k < b; ++k) s[k] = neg_inf;
          j = b;
        }
      }
    for (index_t r = 0; r < nq; ++r)
      any |= softmax_row<T>(&w.S(r, 0), nk, &w.P(r, 0), w.m(r), w.l(r), w.acc, r);
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

/// Whether status a is reported rather than b, so that the threads' order
/// does not matter: a NaN/+Inf logit first (the lowest query tile's; within
/// a tile, the first met key tile by key tile), then a fully forbidden row
/// (lowest first), whichever rows they are in.
bool before(const Status& a, const Status& b) {
  if (a.kind == Status::ok) return false;
  if (b.kind == Status::ok) return true;
  if (a.kind != b.kind) return a.kind == Status::non_finite_logit;
  return a.row < b.row;
}

template <class T>
Status run_all(const Problem<T>& pb) {
  const index_t tiles = (pb.T_q + pb.tile_q - 1) / pb.tile_q;
  int threads = pb.threads >= 1 ? pb.threads : omp_get_max_threads();
  // Below about a million multiply-adds a parallel region costs more than it
  // saves (and libgomp's waiting threads spin): one thread. Same result.
  const double work = double(pb.T_q) * double(pb.T_v) * double(pb.d_k + pb.d_v);
  if (work < double(1 << 20)) threads = 1;
  Status first;
  bool out_of_memory = false;
#pragma omp parallel num_threads(threads) if (threads > 1 && tiles > 1)
  {
    Scratch<T> w;  // allocated on first use, inside the try below
#pragma omp for schedule(dynamic, 1)
    for (index_t i = 0; i < tiles; ++i) {
      // Last query tile first: under a causal mask the last rows have the
      // most keys, and handing out the longest work first balances the threads.
      const index_t q0 = (tiles - 1 - i) * pb.tile_q;
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

// The tiled backward pass of attention in FlashAttention-2's order (Dao 2023,
// "FlashAttention-2", arXiv:2307.08691, Algorithm 2): outer loop over key
// tiles, inner over query tiles, P recomputed from the saved logsumexp.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "attention_setup.hpp"
#include "attn/errors.hpp"
#include "core.hpp"
#include "checks.hpp"

namespace attn::core {

namespace {

/// How the mask covers the block rows [q0, q0+nq) x columns [k0, k0+nk).
enum class Coverage { all_allowed, mixed, all_forbidden };

Coverage coverage(const Mask* mask, Index q0, Index nq, Index k0, Index nk) {
  if (!mask) return Coverage::all_allowed;
  const auto block = mask->block(q0, k0, nq, nk);
  if (!block.any()) return Coverage::all_allowed;
  return block.all() ? Coverage::all_forbidden : Coverage::mixed;
}

/// The lowest query row the mask forbids wholly, or -1.
Index first_fully_masked_row(const Mask& mask) {
  for (Index i = 0; i < mask.rows(); ++i)
    if (mask.row(i).all()) return i;
  return -1;
}

/// Holds the calling thread's OpenMP team size at 1 for its lifetime and
/// restores it after. The library is compiled with OpenMP, so each of
/// Eigen's products would otherwise fork a team of omp_get_max_threads()
/// (Eigen's parallelize_gemm): for the tiles' small products (128 x 256 x d)
/// the fork and the barrier cost more than the product, about half the time
/// of the pass on two cores (PERFORMANCE.md, "The backward pass"). Only the
/// time changes: each entry of a product is summed in the same order.
class OneThread {
 public:
  OneThread() : saved_(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~OneThread() { omp_set_num_threads(saved_); }
  OneThread(const OneThread&) = delete;
  OneThread& operator=(const OneThread&) = delete;

 private:
  int saved_;
};

/// The inputs the tiled pass reads besides Q, K, V and dO.
template <class T>
struct Saved {
  const Matrix<T>& O;
  const Vector<T>& logsumexp;
};

/// Per-pass buffers: one tile each of S (then P), dP (then dS).
template <class T>
struct Tiles {
  Matrix<T> P, dS;
};

/// One (query tile, key tile) block of Algorithm 2's inner loop: recomputes
/// P_ij, adds to dV_j, dK_j (unscaled) and dQ_i (unscaled).
template <class T>
void backward_block(const Matrix<T>& Q, const Matrix<T>& K, const Matrix<T>& V,
                    const Matrix<T>& dO, const Vector<T>& L, const Vector<T>& D, const Mask* mask,
                    T c, Index q0, Index nq, Index k0, Index nk, Tiles<T>& w,
                    AttentionGradients<T>& g) {
  const auto Qi = Q.middleRows(q0, nq);
  const auto Kj = K.middleRows(k0, nk);
  const auto dOi = dO.middleRows(q0, nq);
  w.P.resize(nq, nk);
  w.P.noalias() = Qi * Kj.transpose();
  w.P *= c;  // the scale in a pass of its own, as in the forward kernel
  // A logsumexp is at least each of its logits, so S_ij - L_i <= 0 exactly;
  // computed, it can be far above 0 where |L_i| is beyond the recomputing
  // form's class (TOLERANCE.md (B2): |lse| near 1/(4u), 2^22 in float), and
  // exp would overflow to inf and dS to NaN. The minimum keeps P_ij in [0, 1],
  // the only promise (B2) makes there.
  for (Index r = 0; r < nq; ++r)
    for (Index j = 0; j < nk; ++j)
      w.P(r, j) = mask && (*mask)(q0 + r, k0 + j)
                      ? T(0)
                      : std::exp(std::min(w.P(r, j) - L(q0 + r), T(0)));
  g.dV.middleRows(k0, nk).noalias() += w.P.transpose() * dOi;
  w.dS.resize(nq, nk);
  w.dS.noalias() = dOi * V.middleRows(k0, nk).transpose();  // dP_ij
  for (Index r = 0; r < nq; ++r)
    for (Index j = 0; j < nk; ++j) w.dS(r, j) = w.P(r, j) * (w.dS(r, j) - D(q0 + r));
  g.dQ.middleRows(q0, nq).noalias() += w.dS * Kj;
  g.dK.middleRows(k0, nk).noalias() += w.dS.transpose() * Qi;
}

/// Algorithm 2's loops after every check: D first, then key tiles outside,
/// query tiles inside; the scale c applied to dK_j and dQ once each.
template <class T>
AttentionGradients<T> backward_loops(const Matrix<T>& Q, const Matrix<T>& K, const Matrix<T>& V,
                                     const Saved<T>& saved, const Matrix<T>& dO,
                                     const Mask* mask, T c, const TileSizes& tiles) {
  const Index T_q = Q.rows(), T_v = K.rows();
  const OneThread one_thread;
  AttentionGradients<T> g;
  g.dQ = Matrix<T>::Zero(T_q, Q.cols());
  g.dK = Matrix<T>::Zero(T_v, K.cols());
  g.dV = Matrix<T>::Zero(T_v, V.cols());
  const Vector<T> D = dO.cwiseProduct(saved.O).rowwise().sum();
  Tiles<T> w;
  for (Index k0 = 0; k0 < T_v; k0 += tiles.key) {
    const Index nk = std::min(tiles.key, T_v - k0);
    for (Index q0 = 0; q0 < T_q; q0 += tiles.query) {
      const Index nq = std::min(tiles.query, T_q - q0);
      // A wholly forbidden block adds exactly 0 (P = 0 there): skipped.
      if (tiles.skip_forbidden_tiles && coverage(mask, q0, nq, k0, nk) == Coverage::all_forbidden)
        continue;
      backward_block(Q, K, V, dO, saved.logsumexp, D, mask, c, q0, nq, k0, nk, w, g);
    }
    g.dK.middleRows(k0, nk) *= c;
  }
  g.dQ *= c;
  return g;
}

}  // namespace

template <class T>
AttentionGradients<T> attention_backward_tiled(const Matrix<T>& Q, const Matrix<T>& K,
                                               const Matrix<T>& V, const Matrix<T>& O,
                                               const Vector<T>& logsumexp, const Matrix<T>& dO,
                                               const std::optional<Mask>& mask,
                                               const AttentionOptions& options, TileSizes tiles) {
  constexpr const char* where = "attention_backward_tiled";
  detail::require_tiles(tiles, where);
  const detail::LogitScale<T> scale =
      detail::require_backward_inputs(Q, K, V, dO, mask, options, where, &O, &logsumexp);
  const Index T_q = Q.rows(), T_v = K.rows();
  const std::optional<Mask> m = detail::effective_mask(mask, options, T_q, T_v, where);
  if (T_q > 0 && T_v == 0) throw FullyMaskedRowError(0, where);
  if (m)
    if (const Index row = first_fully_masked_row(*m); row >= 0 && T_v > 0)
      throw FullyMaskedRowError(row, T_q, T_v, where);
  if (detail::logit_may_overflow(Q, K, scale.c))
    detail::apply_logit_rule(Q, K, m ? &*m : nullptr, scale, where);
  return backward_loops(Q, K, V, Saved<T>{O, logsumexp}, dO, m ? &*m : nullptr, scale.c, tiles);
}

#define ATTN_BACKWARD_TILED_INSTANTIATE(T)                                                    \
  template AttentionGradients<T> attention_backward_tiled(                                    \
      const Matrix<T>&, const Matrix<T>&, const Matrix<T>&, const Matrix<T>&,                 \
      const Vector<T>&, const Matrix<T>&, const std::optional<Mask>&, const AttentionOptions&, \
      TileSizes);
ATTN_BACKWARD_TILED_INSTANTIATE(float)
ATTN_BACKWARD_TILED_INSTANTIATE(double)
#undef ATTN_BACKWARD_TILED_INSTANTIATE

}  // namespace attn::core

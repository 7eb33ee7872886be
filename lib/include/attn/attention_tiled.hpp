#pragma once
#include <optional>

#include "attn/attention_options.hpp"
#include "attn/matrix.hpp"

namespace attn {

/// Tile sizes and threads of attention_tiled: rows of Q per query tile and
/// rows of K, V per key tile. Both must be >= 1; a size larger than T_q (or
/// T_v) means one tile, and a size that does not divide T leaves a shorter
/// last tile. The defaults (128 x 256) keep one tile of logits and weights
/// and the tiles of Q, K, V in a core's L2 cache for d <= 128 in double
/// (about 1 MiB); see PERFORMANCE.md.
///
/// threads: the number of OpenMP threads that share the query tiles; 0 (the
/// default) = omp_get_max_threads(), i.e. every core unless OMP_NUM_THREADS
/// says otherwise; < 0 is a ShapeError. Problems below about 10^6
/// multiply-adds (T_q T_v (d_k + d_v) < 2^20) run on one thread. The result
/// does not depend on it (each query tile is computed by one thread in one
/// fixed order).
///
/// skip_forbidden_tiles: a key tile that the mask forbids for every query
/// row of the tile (e.g. above the diagonal of a causal mask) adds exactly
/// nothing and is skipped, not computed. Switching it off changes neither
/// the result nor the errors, only the time; it exists to test that.
struct TileSizes {
  Index query = 128;
  Index key = 256;
  int threads = 0;
  bool skip_forbidden_tiles = true;
};

/// Output of the tiled form: O (T_q x d_v) and, per query row,
///   logsumexp_i = log sum_{allowed j} exp(S_ij),  S = Q K^T / sqrt(d_k),
/// the quantity a backward pass keeps instead of the weights A.
template <class M, class V>
struct TiledAttentionResultOf {
  M O;
  V logsumexp;
};
/// Written once for any matrix type M and named for the caller's
/// Matrix<T> and Vector<T>: the library, built with Eigen renamed (abi.hpp), uses the same
/// template with its own matrices, a different type, so no member function
/// of it can be merged by the linker with the caller's.
template <class T>
using TiledAttentionResult = TiledAttentionResultOf<Matrix<T>, Vector<T>>;

/// Scaled dot-product attention, tiled with an online softmax
/// (Dao et al. 2022, "FlashAttention", arXiv:2205.14135, Algorithm 1 and
/// Theorem 1; the cost paragraph of section 32.2.4). Same result as
/// attention(Q, K, V, mask).O up to rounding, without materialising the
/// T_q x T_v matrices S and A.
///
/// For each query tile and each key tile in turn, every query row i keeps a
/// running maximum m_i of its allowed logits (starting at -Inf), a running
/// sum l_i of exp(S_ij - m_i) over the allowed keys seen so far, and the
/// unnormalised output row sum_j exp(S_ij - m_i) v_j. When a tile raises the
/// maximum, l_i and the output row are multiplied by exp(m_old - m_new);
/// forbidden entries, and allowed logits that overflowed to -Inf, add
/// exactly 0. A key tile where a row has no allowed logit above -Inf leaves
/// that row untouched (no exp(-Inf - -Inf)). At the end
/// O_i = acc_i / l_i and logsumexp_i = m_i + log l_i.
///
/// How it is computed: the tile of logits is one matrix product
/// Q_tile K_tile^T (Eigen's GEMM), scaled by 1/sqrt(d_k) (a reciprocal and a
/// product, reference/TOLERANCE.md step (1)); the weights use a vectorised
/// exp within 0.70 ulp (double) and 0.51 ulp (float)
/// measured (TOLERANCE.md step (3)) and are set to exactly 0 at
/// forbidden entries; the accumulator is updated by a second product
/// P_tile V_tile. Query tiles are shared among tiles.threads OpenMP threads
/// (dynamic schedule); each is computed by one thread from its first to its
/// last key tile, so the result is the same, bit for bit, for any thread
/// count. A key tile the mask forbids wholly for the query tile is skipped
/// (a causal mask skips about half the work). The kernel is compiled for
/// the baseline x86-64, AVX2+FMA and AVX-512 and picked at run time for the
/// CPU (attention_tiled_kernel() names it); results on CPUs with different
/// vector widths may differ in the last bits, all within the error bound.
///
/// Extra memory, per thread: one tile of logits and one of weights
/// (2 tiles.query tiles.key scalars), the query tile's accumulator
/// (tiles.query d_v), its running max and sum (2 tiles.query), and Eigen's
/// GEMM packing buffers (about (tiles.query + tiles.key) d scalars);
/// besides the result (T_q d_v + T_q), held twice while the library copies
/// it into the caller's (abi.hpp); Q, K and V are read in place. Nothing
/// grows like T_q T_v.
/// Arithmetic: the same 2 T_q T_v (d_k + d_v) flops as the naive form, about
/// half of it under a causal mask.
///
/// Q: T_q x d_k, K: T_v x d_k, V: T_v x d_v, mask: T_q x T_v (true = forbidden)
/// or std::nullopt. Logits follow the rule for logits (docs/ARCHITECTURE.md,
/// "lib/"), as in attention: only allowed entries are read; an allowed logit
/// that overflows to -Inf gets weight exactly 0, unless every allowed logit
/// of its row does (then NonFiniteInputError, below).
/// Throws, like attention: ShapeError (tile size < 1, threads < 0, d_k
/// mismatch, K and V with different row counts, mask shape, d_k == 0);
/// NonFiniteInputError (NaN/Inf in Q, K, V; an allowed logit that is NaN or
/// +Inf, or a row whose allowed logits all overflow to -Inf, reported as "S"
/// with its row and column); FullyMaskedRowError for the lowest query row
/// with no allowed key (also T_v = 0 with T_q > 0). The order does not
/// depend on the tiles or threads: when a logit can overflow, every row's
/// allowed logits are checked, lowest row first and left to right as
/// attention does, before any tile is computed, and the first fault met is
/// thrown; a fully forbidden row is known only after every tile has been
/// seen. So when a row is fully forbidden and a later row has a faulty
/// logit, attention_tiled throws the NonFiniteInputError where attention
/// throws the FullyMaskedRowError of the earlier row. T_q = 0 gives an
/// empty result.
/// std::bad_alloc if a thread's buffers cannot be allocated.
/// Inline: computed by libattn through attn::raw::attention_tiled (abi.hpp).
template <class T>
TiledAttentionResult<T> attention_tiled(const Matrix<T>& Q, const Matrix<T>& K, const Matrix<T>& V,
                                        const std::optional<Mask>& mask, TileSizes tiles = {}) {
  TiledAttentionResult<T> r;
  raw::MaskIn m;
  raw::attention_tiled(raw::in(Q), raw::in(K), raw::in(V), raw::in(mask, m), nullptr, tiles,
                       raw::out(r.O, Q.rows(), V.cols()), raw::out(r.logsumexp, Q.rows(), 1));
  return r;
}

/// attention_tiled with the logits' scale and a causal mask
/// (AttentionOptions, attention_options.hpp): S = c Q K^T with c =
/// options.scale (default 1/sqrt(d_k): the same result, bit for bit, as the
/// form above), the mask combined with causal_mask(T_q, T_v,
/// options.alignment) when options.causal. Its logsumexp is the one the
/// tiled backward (attention_backward_tiled, attention_backward.hpp) needs
/// with the same options.
/// Throws as the form above, and NonFiniteInputError on "scale" when
/// options.scale is NaN or Inf; a row that the causal mask (with the mask)
/// leaves with no key is a FullyMaskedRowError (a bottom-right causal mask
/// with T_q > T_v forbids the first T_q - T_v rows wholly). Memory: as the
/// form above, plus the combined mask (T_q T_v bytes) when options.causal.
template <class T>
TiledAttentionResult<T> attention_tiled(const Matrix<T>& Q, const Matrix<T>& K, const Matrix<T>& V,
                                        const std::optional<Mask>& mask,
                                        const AttentionOptions& options, TileSizes tiles = {}) {
  TiledAttentionResult<T> r;
  raw::MaskIn m;
  raw::attention_tiled(raw::in(Q), raw::in(K), raw::in(V), raw::in(mask, m), &options, tiles,
                       raw::out(r.O, Q.rows(), V.cols()), raw::out(r.logsumexp, Q.rows(), 1));
  return r;
}

/// The kernel attention_tiled runs on this CPU: "avx512", "avx2" or
/// "baseline" (the environment variable ATTNLAB_TILED_ISA = baseline or
/// avx2 lowers the choice, for tests; it is read once). Compiled in libattn
/// (no Eigen type: abi.hpp).
const char* attention_tiled_kernel();

}  // namespace attn

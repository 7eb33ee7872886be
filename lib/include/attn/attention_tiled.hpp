#pragma once
#include <optional>

#include "attn/matrix.hpp"

namespace attn {

/// Tile sizes of attention_tiled: rows of Q per query tile and rows of K, V
/// per key tile. Both must be >= 1; a size larger than T_q (or T_v) means one
/// tile, and a size that does not divide T leaves a shorter last tile.
struct TileSizes {
  Index query = 64;
  Index key = 64;
};

/// Output of the tiled form: O (T_q x d_v) and, per query row,
///   logsumexp_i = log sum_{allowed j} exp(S_ij),  S = Q K^T / sqrt(d_k),
/// the quantity a backward pass keeps instead of the weights A.
template <class T>
struct TiledAttentionResult {
  Matrix<T> O;
  Vector<T> logsumexp;
};

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
/// forbidden entries add exactly 0. A key tile with no allowed entry for a
/// row leaves that row untouched (no exp(-Inf - -Inf)). At the end
/// O_i = acc_i / l_i and logsumexp_i = m_i + log l_i.
///
/// Extra memory: O(T_q * d_v) for the accumulator (which is O itself), O(T_q)
/// for m and l, and O(tiles.query * tiles.key) for one tile of logits and
/// weights. Arithmetic: the same O(T_q T_v (d_k + d_v)) as the naive form.
///
/// Q: T_q x d_k, K: T_v x d_k, V: T_v x d_v, mask: T_q x T_v (true = forbidden)
/// or std::nullopt. A logit that is -Inf (overflow of a finite product) is
/// forbidden, as in masked_softmax.
/// Throws, like attention: ShapeError (tile size < 1, d_k mismatch, K and V
/// with different row counts, mask shape, d_k == 0); NonFiniteInputError
/// (NaN/Inf in Q, K, V; a logit that is NaN or +Inf, reported as "S" with its
/// row and column: the first met in tile order, which may differ from the
/// naive form's row-major order when there are several); FullyMaskedRowError
/// for the lowest query row with no allowed key (also T_v = 0 with T_q > 0),
/// raised after every tile has been seen. T_q = 0 gives an empty result.
template <class T>
TiledAttentionResult<T> attention_tiled(const Matrix<T>& Q, const Matrix<T>& K, const Matrix<T>& V,
                                        const std::optional<Mask>& mask, TileSizes tiles = {});

extern template TiledAttentionResult<float> attention_tiled(const Matrix<float>&,
                                                            const Matrix<float>&,
                                                            const Matrix<float>&,
                                                            const std::optional<Mask>&, TileSizes);
extern template TiledAttentionResult<double> attention_tiled(const Matrix<double>&,
                                                             const Matrix<double>&,
                                                             const Matrix<double>&,
                                                             const std::optional<Mask>&, TileSizes);

}  // namespace attn

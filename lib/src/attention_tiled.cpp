#include "attn/attention_tiled.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "attn/errors.hpp"
#include "checks.hpp"

namespace attn {

template <class T>
TiledAttentionResult<T> attention_tiled(const Matrix<T>& Q, const Matrix<T>& K, const Matrix<T>& V,
                                        const std::optional<Mask>& mask, TileSizes tiles) {
  constexpr const char* where = "attention_tiled";
  if (tiles.query < 1 || tiles.key < 1)
    throw ShapeError(std::string(where) + ": tile sizes must be >= 1, got query = " +
                     std::to_string(tiles.query) + ", key = " + std::to_string(tiles.key));
  // The same checks, in the same order, as attention and scores.
  detail::require_key_value_mask(K, V, mask, Q.rows(), where);
  detail::require_query_key(Q, K, where);

  const Index T_q = Q.rows(), T_v = K.rows(), d_v = V.cols();
  const T scale = std::sqrt(static_cast<T>(Q.cols()));
  const T neg_inf = -std::numeric_limits<T>::infinity();

  TiledAttentionResult<T> out;
  out.O = Matrix<T>::Zero(T_q, d_v);                // the accumulators, normalised at the end
  Vector<T> m = Vector<T>::Constant(T_q, neg_inf);  // running max over allowed logits
  Vector<T> l = Vector<T>::Zero(T_q);               // running sum of exp(S_ij - m_i)
  Matrix<T> S_tile, P_tile;                         // at most tiles.query x tiles.key

  for (Index q0 = 0; q0 < T_q; q0 += std::min(tiles.query, T_q - q0)) {
    const Index nq = std::min(tiles.query, T_q - q0);
    for (Index k0 = 0; k0 < T_v; k0 += std::min(tiles.key, T_v - k0)) {
      const Index nk = std::min(tiles.key, T_v - k0);
      // Pass 1: this tile's logits (Lemma 1).
      S_tile.noalias() = Q.middleRows(q0, nq) * K.middleRows(k0, nk).transpose();
      S_tile /= scale;
      P_tile.resize(nq, nk);
      for (Index row = 0; row < nq; ++row) {
        const Index i = q0 + row;
        // Pass 2: refuse NaN/+Inf logits; the tile max over allowed entries only.
        T tile_max = neg_inf;
        for (Index c = 0; c < nk; ++c) {
          const T s = S_tile(row, c);
          if (std::isnan(s) || s == -neg_inf)
            throw NonFiniteInputError("S", i, k0 + c, static_cast<double>(s), where);
          const bool allowed = !(mask && (*mask)(i, k0 + c)) && s != neg_inf;
          if (allowed && s > tile_max) tile_max = s;
        }
        if (tile_max == neg_inf) {
          // Wholly forbidden for this row: it adds nothing and m_i stays as it is.
          P_tile.row(row).setZero();
          continue;
        }
        // Pass 3: new max (finite), rescale what was accumulated, new weights.
        const T m_new = std::max(m(i), tile_max);
        const T rescale = std::exp(m(i) - m_new);  // exp(-Inf) = 0 on the first allowed tile
        T tile_sum = 0;
        for (Index c = 0; c < nk; ++c) {
          const T s = S_tile(row, c);
          const bool allowed = !(mask && (*mask)(i, k0 + c)) && s != neg_inf;
          P_tile(row, c) = allowed ? std::exp(s - m_new) : T(0);  // Lemma 2: exact 0
          tile_sum += P_tile(row, c);
        }
        l(i) = rescale * l(i) + tile_sum;
        if (rescale != T(1)) out.O.row(i) *= rescale;
        m(i) = m_new;
      }
      // Pass 4: add this tile's unnormalised contribution P V.
      out.O.middleRows(q0, nq).noalias() += P_tile * V.middleRows(k0, nk);
    }
  }

  // Every tile seen: refuse the lowest fully forbidden row, then normalise.
  for (Index i = 0; i < T_q; ++i)
    if (m(i) == neg_inf) throw FullyMaskedRowError(i, where);
  out.logsumexp.resize(T_q);
  for (Index i = 0; i < T_q; ++i) {
    out.O.row(i) /= l(i);  // l_i >= exp(0) = 1: the row's maximum contributes 1
    out.logsumexp(i) = m(i) + std::log(l(i));
  }
  return out;
}

template TiledAttentionResult<float> attention_tiled(const Matrix<float>&, const Matrix<float>&,
                                                     const Matrix<float>&,
                                                     const std::optional<Mask>&, TileSizes);
template TiledAttentionResult<double> attention_tiled(const Matrix<double>&, const Matrix<double>&,
                                                      const Matrix<double>&,
                                                      const std::optional<Mask>&, TileSizes);

}  // namespace attn

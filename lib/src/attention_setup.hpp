#pragma once
// What attention_tiled (with options) and the backward passes share before
// any arithmetic: the scale and the causal mask of AttentionOptions
// resolved, and the rule for logits applied ahead of a kernel when a logit
// may overflow (private to lib/).
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "attn/attention_options.hpp"
#include "attn/attention_tiled.hpp"
#include "attn/errors.hpp"
#include "attn/masks.hpp"
#include "core.hpp"
#include "checks.hpp"
#include "logit_rule.hpp"

namespace attn::detail {

/// Tile sizes >= 1 and threads >= 0 (TileSizes), else ShapeError.
inline void require_tiles(const TileSizes& tiles, const char* where) {
  if (tiles.query < 1 || tiles.key < 1)
    throw ShapeError(std::string(where) + ": tile sizes must be >= 1, got query = " +
                     std::to_string(tiles.query) + ", key = " + std::to_string(tiles.key));
  if (tiles.threads < 0)
    throw ShapeError(std::string(where) + ": threads must be >= 0 (0 = all), got " +
                     std::to_string(tiles.threads));
}

/// The checks of attention_tiled and of the tiled backward, in attention's
/// order: tile sizes, K and V and the mask, Q and K (ShapeError,
/// NonFiniteInputError naming `where`).
template <class M_>
void require_tiled_inputs(const M_& Q, const M_& K, const M_& V,
                          const std::optional<Mask>& mask, const TileSizes& tiles,
                          const char* where) {
  require_tiles(tiles, where);
  require_key_value_mask(K, V, mask, Q.rows(), where);
  require_query_key(Q, K, where);
}

/// The factor of the logits, S = c Q K^T. The default 1/sqrt(d_k) is applied
/// as the forms without options apply it: the naive form divides by
/// sqrt(d_k) (scaled_logits), the tiled kernels multiply by the reciprocal.
template <class T>
struct LogitScale {
  bool given = false;  ///< options.scale was set
  T root = 1;          ///< sqrt(d_k)
  T c = 1;             ///< the factor: options.scale, else 1 / sqrt(d_k)

  /// The logit from the dot product Q_i . K_j, the naive way.
  T operator()(T dot) const { return given ? dot * c : dot / root; }
};

/// Resolves options.scale for d_k >= 1. Throws NonFiniteInputError on "scale".
template <class T>
LogitScale<T> logit_scale(const AttentionOptions& options, Index d_k, const char* where) {
  LogitScale<T> s;
  s.root = std::sqrt(static_cast<T>(d_k));
  if (!options.scale) {
    s.c = T(1) / s.root;
    return s;
  }
  const T c = static_cast<T>(*options.scale);
  if (!std::isfinite(c))
    throw NonFiniteInputError("scale", 0, 0, *options.scale, 1, 1, where,
                              std::string("the scale must be a finite ") + type_name<T>());
  s.given = true;
  s.c = c;
  return s;
}

/// The mask the operation applies: `mask` combined with the causal mask when
/// options.causal (AttentionOptions). Throws ShapeError naming `where` if
/// `mask` is not T_q x T_v.
inline std::optional<Mask> effective_mask(const std::optional<Mask>& mask,
                                          const AttentionOptions& options, Index T_q, Index T_v,
                                          const char* where) {
  if (mask) require_mask_shape(*mask, T_q, T_v, where);
  if (!options.causal) return mask;
  Mask causal = core::causal_mask(T_q, T_v, options.alignment);
  if (!mask) return causal;
  return core::combine_masks(*mask, causal);
}

/// The checks of both backward passes (attention_backward.hpp), in the
/// forward's order: K, V and the mask; Q and K; the forward's O (T_q x d_v)
/// and logsumexp (T_q, finite) when given (the tiled form); then dO
/// (T_q x d_v); then the scale, which is returned. Throws ShapeError or
/// NonFiniteInputError naming `where`.
template <class T>
LogitScale<T> require_backward_inputs(const Matrix<T>& Q, const Matrix<T>& K, const Matrix<T>& V,
                                      const Matrix<T>& dO, const std::optional<Mask>& mask,
                                      const AttentionOptions& options, const char* where,
                                      const Matrix<T>* O = nullptr,
                                      const Vector<T>* logsumexp = nullptr) {
  require_key_value_mask(K, V, mask, Q.rows(), where);
  require_query_key(Q, K, where);
  const Index T_q = Q.rows();
  if (O) require_matrix(*O, T_q, V.cols(), "O", where, "T_q x d_v, the forward's O");
  if (logsumexp) {
    if (logsumexp->size() != T_q)
      throw ShapeError(std::string(where) + ": logsumexp has " +
                       std::to_string(logsumexp->size()) + " entries but must have T_q = " +
                       std::to_string(T_q) + " (one per query row, the forward's)");
    for (Index i = 0; i < T_q; ++i)
      if (!std::isfinite((*logsumexp)(i)))
        throw NonFiniteInputError("logsumexp", i, 0, static_cast<double>((*logsumexp)(i)), T_q,
                                  1, where);
  }
  require_matrix(dO, T_q, V.cols(), "dO", where, "T_q x d_v, the shape of O");
  return logit_scale<T>(options, Q.cols(), where);
}

/// Whether some logit c Q_i . K_j could overflow (then be +-Inf or NaN): every
/// product is at most max|Q| max|K| and the d_k-term sum at most d_k times
/// that, rounding included, if it stays below a quarter of the largest
/// finite T; a factor |c| <= 1 cannot make it overflow.
template <class M_, class T>
bool logit_may_overflow(const M_& Q, const M_& K, T c) {
  if (Q.size() == 0 || K.size() == 0) return false;
  const long double grow = std::fabs(static_cast<long double>(c)) > 1
                               ? std::fabs(static_cast<long double>(c))
                               : 1.0L;
  const long double bound = static_cast<long double>(Q.cwiseAbs().maxCoeff()) *
                            static_cast<long double>(K.cwiseAbs().maxCoeff()) *
                            static_cast<long double>(Q.cols()) * grow;
  return !(bound <= static_cast<long double>(std::numeric_limits<T>::max()) / 4);
}

/// The rule for logits (logit_rule.hpp), applied row by row before a kernel
/// runs when a logit may overflow: O(T_v) memory, one pass of dot products.
/// The kernel then meets no allowed NaN or +Inf, and a row whose allowed
/// logits all overflow to -Inf is refused here as the rule says.
template <class M_, class T>
void apply_logit_rule(const M_& Q, const M_& K, const Mask* mask,
                      const LogitScale<T>& scale, const char* where) {
  const Index T_q = Q.rows(), T_v = K.rows();
  for (Index i = 0; i < T_q; ++i) {
    bool overflowed = false, any_finite = false;
    Index first_overflow = -1;
    for (Index j = 0; j < T_v; ++j) {
      if (mask && (*mask)(i, j)) continue;
      const T s = scale(Q.row(i).dot(K.row(j)));
      const bool was = overflowed;
      if (logit_takes_part(s, i, j, T_q, T_v, Logits::computed, where, &overflowed))
        any_finite = true;
      else if (overflowed && !was)
        first_overflow = j;
    }
    if (!any_finite && overflowed)
      throw_no_finite_logit(i, first_overflow, T_q, T_v, true, sizeof(T) == sizeof(float), where);
  }
}

}  // namespace attn::detail

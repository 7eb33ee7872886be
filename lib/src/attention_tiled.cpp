#include "attn/attention_tiled.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "attn/errors.hpp"
#include "checks.hpp"
#include "logit_rule.hpp"
#include "tiled/kernel.hpp"

namespace attn {

namespace {

/// Whether some logit Q_i . K_j could overflow (then be +-Inf or NaN): every
/// product is at most max|Q| max|K| and the d_k-term sum at most d_k times
/// that, rounding included, if it stays below a quarter of the largest
/// finite T. Dividing by sqrt(d_k) >= 1 cannot overflow.
template <class T>
bool logit_may_overflow(const Matrix<T>& Q, const Matrix<T>& K) {
  if (Q.size() == 0 || K.size() == 0) return false;
  const long double bound = static_cast<long double>(Q.cwiseAbs().maxCoeff()) *
                            static_cast<long double>(K.cwiseAbs().maxCoeff()) *
                            static_cast<long double>(Q.cols());
  return !(bound <= static_cast<long double>(std::numeric_limits<T>::max()) / 4);
}

/// The rule for logits (logit_rule.hpp), applied row by row before the
/// kernel runs when a logit may overflow: O(T_v) memory, one pass of dot
/// products. The kernel then meets no allowed NaN or +Inf, and a row whose
/// allowed logits all overflow to -Inf is refused here as the rule says.
template <class T>
void apply_logit_rule(const Matrix<T>& Q, const Matrix<T>& K, const std::optional<Mask>& mask,
                      const char* where) {
  const Index T_q = Q.rows(), T_v = K.rows();
  const T scale = std::sqrt(static_cast<T>(Q.cols()));
  for (Index i = 0; i < T_q; ++i) {
    bool overflowed = false, any_finite = false;
    Index first_overflow = -1;
    for (Index j = 0; j < T_v; ++j) {
      if (mask && (*mask)(i, j)) continue;
      const T s = Q.row(i).dot(K.row(j)) / scale;
      const bool was = overflowed;
      if (detail::logit_takes_part(s, i, j, T_q, T_v, detail::Logits::computed, where, &overflowed))
        any_finite = true;
      else if (overflowed && !was)
        first_overflow = j;
    }
    if (!any_finite && overflowed)
      detail::throw_no_finite_logit(i, first_overflow, T_q, T_v, true, sizeof(T) == sizeof(float),
                                    where);
  }
}

/// The power of two 2^k (k >= 0) that V is divided by so the kernel's
/// unnormalised running sums, at most T_v max|V|, stay finite; O is
/// multiplied back at the end. Both scalings are exact (powers of two).
template <class T>
int value_scale_exponent(const Matrix<T>& V) {
  if (V.size() == 0) return 0;
  const long double worst = static_cast<long double>(V.cwiseAbs().maxCoeff()) *
                            static_cast<long double>(V.rows());
  const long double room = static_cast<long double>(std::numeric_limits<T>::max()) / 4;
  if (worst <= room) return 0;
  return static_cast<int>(std::ceil(std::log2(worst / room)));
}

}  // namespace

const char* attention_tiled_kernel() { return detail::tiled::isa_name(); }

template <class T>
TiledAttentionResult<T> attention_tiled(const Matrix<T>& Q, const Matrix<T>& K, const Matrix<T>& V,
                                        const std::optional<Mask>& mask, TileSizes tiles) {
  constexpr const char* where = "attention_tiled";
  if (tiles.query < 1 || tiles.key < 1)
    throw ShapeError(std::string(where) + ": tile sizes must be >= 1, got query = " +
                     std::to_string(tiles.query) + ", key = " + std::to_string(tiles.key));
  if (tiles.threads < 0)
    throw ShapeError(std::string(where) + ": threads must be >= 0 (0 = all), got " +
                     std::to_string(tiles.threads));
  // The same checks, in the same order, as attention and scores.
  detail::require_key_value_mask(K, V, mask, Q.rows(), where);
  detail::require_query_key(Q, K, where);

  const Index T_q = Q.rows(), T_v = K.rows(), d_v = V.cols();
  TiledAttentionResult<T> out;
  out.O.resize(T_q, d_v);
  out.logsumexp.resize(T_q);
  if (T_q == 0) return out;
  if (T_v == 0) throw FullyMaskedRowError(0, where);

  const bool check_logits = logit_may_overflow(Q, K);
  if (check_logits) apply_logit_rule(Q, K, mask, where);
  // |V| near the type's maximum: the running sums would overflow where the
  // normalised answer does not (it is a convex combination of V's rows).
  const int v_exponent = value_scale_exponent(V);
  Matrix<T> V_scaled;
  if (v_exponent > 0) V_scaled = V * std::ldexp(T(1), -v_exponent);

  detail::tiled::Problem<T> p{};
  p.Q = Q.data();
  p.K = K.data();
  p.V = v_exponent > 0 ? V_scaled.data() : V.data();
  p.mask = mask ? mask->data() : nullptr;
  p.T_q = T_q;
  p.T_v = T_v;
  p.d_k = Q.cols();
  p.d_v = d_v;
  p.tile_q = tiles.query;
  p.tile_k = tiles.key;
  p.threads = tiles.threads;
  p.skip_forbidden_tiles = tiles.skip_forbidden_tiles;
  p.check_logits = check_logits;
  p.O = out.O.data();
  p.logsumexp = out.logsumexp.data();
  const detail::tiled::Status st = detail::tiled::run(p);
  switch (st.kind) {
    case detail::tiled::Status::non_finite_logit:
      throw NonFiniteInputError("S", st.row, st.col, st.value, T_q, T_v, where,
                                detail::overflow_reason<T>(false));
    case detail::tiled::Status::fully_masked_row:
      throw FullyMaskedRowError(st.row, T_q, T_v, where);
    case detail::tiled::Status::ok:
      break;
  }
  if (v_exponent > 0) out.O *= std::ldexp(T(1), v_exponent);
  return out;
}

template TiledAttentionResult<float> attention_tiled(const Matrix<float>&, const Matrix<float>&,
                                                     const Matrix<float>&,
                                                     const std::optional<Mask>&, TileSizes);
template TiledAttentionResult<double> attention_tiled(const Matrix<double>&, const Matrix<double>&,
                                                      const Matrix<double>&,
                                                      const std::optional<Mask>&, TileSizes);

}  // namespace attn


#include <cmath>
#include <limits>
#include <string>

#include "attn/errors.hpp"
#include "core.hpp"
#include "attention_setup.hpp"
#include "checks.hpp"
#include "logit_rule.hpp"
#include "tiled/kernel.hpp"

namespace attn::core {

namespace {

/// The power of two 2^k (k >= 0) that V is divided by so the kernel's
/// unnormalised running sums, at most T_v max|V|, stay finite; O is
/// multiplied back at the end. Both scalings are exact (powers of two).
template <class T>
int value_scale_exponent(const detail::ConstMap<T>& V) {
  if (V.size() == 0) return 0;
  const long double worst = static_cast<long double>(V.cwiseAbs().maxCoeff()) *
                            static_cast<long double>(V.rows());
  const long double room = static_cast<long double>(std::numeric_limits<T>::max()) / 4;
  if (worst <= room) return 0;
  return static_cast<int>(std::ceil(std::log2(worst / room)));
}

/// Both forms of attention_tiled once the inputs are checked: the kernel run
/// with the logits' scale, the rule for logits and V's exact rescaling.
template <class T>
TiledAttentionResult<T> run_tiled(const detail::ConstMap<T>& Q, const detail::ConstMap<T>& K,
                                  const detail::ConstMap<T>& V,
                                  const Mask* mask, const detail::LogitScale<T>& scale,
                                  const TileSizes& tiles, const char* where) {
  const Index T_q = Q.rows(), T_v = K.rows(), d_v = V.cols();
  TiledAttentionResult<T> out;
  out.O.resize(T_q, d_v);
  out.logsumexp.resize(T_q);
  if (T_q == 0) return out;
  if (T_v == 0) throw FullyMaskedRowError(0, where);

  const bool check_logits = detail::logit_may_overflow(Q, K, scale.c);
  if (check_logits) detail::apply_logit_rule(Q, K, mask, scale, where);
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
  p.scale = scale.c;
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

}  // namespace

template <class T>
TiledAttentionResult<T> attention_tiled(const detail::ConstMap<T>& Q, const detail::ConstMap<T>& K,
                                        const detail::ConstMap<T>& V,
                                        const std::optional<Mask>& mask, TileSizes tiles) {
  constexpr const char* where = "attention_tiled";
  // The same checks, in the same order, as attention and scores.
  detail::require_tiled_inputs(Q, K, V, mask, tiles, where);
  const auto scale = detail::logit_scale<T>(AttentionOptions{}, Q.cols(), where);
  return run_tiled(Q, K, V, mask ? &*mask : nullptr, scale, tiles, where);
}

template <class T>
TiledAttentionResult<T> attention_tiled(const detail::ConstMap<T>& Q, const detail::ConstMap<T>& K,
                                        const detail::ConstMap<T>& V,
                                        const std::optional<Mask>& mask,
                                        const AttentionOptions& options, TileSizes tiles) {
  constexpr const char* where = "attention_tiled";
  detail::require_tiled_inputs(Q, K, V, mask, tiles, where);
  const auto scale = detail::logit_scale<T>(options, Q.cols(), where);
  const std::optional<Mask> m = detail::effective_mask(mask, options, Q.rows(), K.rows(), where);
  return run_tiled(Q, K, V, m ? &*m : nullptr, scale, tiles, where);
}

#define ATTN_TILED_INSTANTIATE(T)                                                              \
  template TiledAttentionResult<T> attention_tiled(                                            \
      const detail::ConstMap<T>&, const detail::ConstMap<T>&, const detail::ConstMap<T>&,      \
      const std::optional<Mask>&, TileSizes);                                                  \
  template TiledAttentionResult<T> attention_tiled(                                            \
      const detail::ConstMap<T>&, const detail::ConstMap<T>&, const detail::ConstMap<T>&,      \
      const std::optional<Mask>&, const AttentionOptions&, TileSizes);
ATTN_TILED_INSTANTIATE(float)
ATTN_TILED_INSTANTIATE(double)
#undef ATTN_TILED_INSTANTIATE

}  // namespace attn::core

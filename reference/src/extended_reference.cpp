// The oracle's second tier: the stable softmax in long double
// (extended_reference.hpp). Plain loops, like oracle.cpp.
#include "attn/ref/extended_reference.hpp"

#include <cmath>
#include <limits>

#include "oracle_inputs.hpp"

namespace attn::ref {

namespace {

using Wide = long double;

/// The stable softmax of one row of logits over its allowed entries
/// (section 32.2.4): subtract the maximum, exponentiate, divide by the sum.
/// OracleRefusal for a row with no allowed entry.
void softmax_rows(ExactAttention& r, const std::vector<std::vector<Wide>>& S) {
  const std::ptrdiff_t T_q = r.allowed.rows(), T_v = r.allowed.cols();
  r.S = RealMatrix(T_q, T_v);
  r.A = RealMatrix(T_q, T_v);
  r.logsumexp.assign(std::size_t(T_q), Real(0));
  for (std::ptrdiff_t i = 0; i < T_q; ++i) {
    const auto& s = S[std::size_t(i)];
    bool any = false;
    Wide m = 0;
    for (std::ptrdiff_t j = 0; j < T_v; ++j)
      if (r.allowed(i, j) && (!any || s[std::size_t(j)] > m)) m = s[std::size_t(j)], any = true;
    if (!any) throw OracleRefusal("oracle: every key is forbidden for query row " + std::to_string(i), i);
    std::vector<Wide> p(static_cast<std::size_t>(T_v), 0);
    Wide Z = 0;
    for (std::ptrdiff_t j = 0; j < T_v; ++j) {
      r.S(i, j) = Real(s[std::size_t(j)]);
      if (r.allowed(i, j)) Z += p[std::size_t(j)] = std::exp(s[std::size_t(j)] - m);
    }
    for (std::ptrdiff_t j = 0; j < T_v; ++j) r.A(i, j) = Real(p[std::size_t(j)] / Z);
    r.logsumexp[std::size_t(i)] = Real(m + std::log(Z));
  }
}

}  // namespace

ExactAttention extended_attention(const DMatrix& Q, const DMatrix& K, const DMatrix& V,
                                  const std::optional<BoolMatrix>& mask, std::optional<double> scale) {
  detail::require_attention_inputs(Q, K, V, scale);
  const std::ptrdiff_t T_q = Q.rows(), T_v = K.rows(), d_k = Q.cols(), d_v = V.cols();
  ExactAttention r;
  r.allowed = detail::allowed_from(mask, T_q, T_v);
  // Lemma 1: S = Q K^T / sqrt(d_k) (or times the explicit scale).
  const Wide factor = scale ? Wide(*scale) : 1 / std::sqrt(Wide(d_k));
  std::vector<std::vector<Wide>> S(static_cast<std::size_t>(T_q), std::vector<Wide>(static_cast<std::size_t>(T_v)));
  for (std::ptrdiff_t i = 0; i < T_q; ++i)
    for (std::ptrdiff_t j = 0; j < T_v; ++j) {
      Wide dot = 0;
      for (std::ptrdiff_t k = 0; k < d_k; ++k) dot += Wide(Q(i, k)) * Wide(K(j, k));
      S[std::size_t(i)][std::size_t(j)] = dot * factor;
    }
  softmax_rows(r, S);
  r.O = RealMatrix(T_q, d_v);
  for (std::ptrdiff_t i = 0; i < T_q; ++i) {
    std::vector<Wide> a(static_cast<std::size_t>(T_v));
    for (std::ptrdiff_t j = 0; j < T_v; ++j) a[std::size_t(j)] = static_cast<Wide>(r.A(i, j));
    for (std::ptrdiff_t l = 0; l < d_v; ++l) {
      Wide o = 0;
      for (std::ptrdiff_t j = 0; j < T_v; ++j) o += a[std::size_t(j)] * Wide(V(j, l));
      r.O(i, l) = Real(o);
    }
  }
  return r;
}

ExactSoftmax extended_masked_softmax(const DMatrix& S, const std::optional<BoolMatrix>& mask) {
  ExactAttention r;
  r.allowed = detail::allowed_from(mask, S.rows(), S.cols());
  (void)detail::given_logits(S, r.allowed);  // the refusals and -Inf as forbidden
  std::vector<std::vector<Wide>> W(static_cast<std::size_t>(S.rows()), std::vector<Wide>(static_cast<std::size_t>(S.cols()), 0));
  for (std::ptrdiff_t i = 0; i < S.rows(); ++i)
    for (std::ptrdiff_t j = 0; j < S.cols(); ++j)
      if (r.allowed(i, j)) W[std::size_t(i)][std::size_t(j)] = S(i, j);
  softmax_rows(r, W);
  return ExactSoftmax{std::move(r.S), std::move(r.A), std::move(r.logsumexp), std::move(r.allowed)};
}

PrecisionModel extended_precision() {
  PrecisionModel p;
  p.unit_roundoff = std::numeric_limits<Wide>::epsilon() / 2;
  p.smallest_normal = static_cast<double>(std::max<Wide>(std::numeric_limits<Wide>::min(),
                                                         std::numeric_limits<double>::denorm_min()));
  return p;
}

bool uses_extended_tier(std::ptrdiff_t T_q, std::ptrdiff_t T_v, std::ptrdiff_t d_k,
                        std::ptrdiff_t d_v) noexcept {
  return double(T_q) * double(T_v) * double(d_k + d_v) > 0x1p17;
}

AttentionBound add_bounds(AttentionBound a, const AttentionBound& b) {
  auto add = [](DMatrix& x, const DMatrix& y) {
    if (x.size() > 0 && x.rows() == y.rows() && x.cols() == y.cols()) x += y;
  };
  add(a.S, b.S);
  add(a.A, b.A);
  add(a.O, b.O);
  for (std::size_t i = 0; i < a.logsumexp.size() && i < b.logsumexp.size(); ++i) a.logsumexp[i] += b.logsumexp[i];
  for (std::size_t i = 0; i < a.row_sum.size() && i < b.row_sum.size(); ++i) a.row_sum[i] += b.row_sum[i];
  return a;
}

}  // namespace attn::ref

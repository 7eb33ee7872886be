// The a-priori bound for multi-head attention (multi_head_bound.hpp has the derivation).
#include "attn/ref/multi_head_bound.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn::ref {

HeadBound head_output_bound(const DMatrix& X_q, const DMatrix& X_kv, const DMatrix& W_Q,
                           const DMatrix& W_K, const DMatrix& W_V,
                           const std::optional<BoolMatrix>& mask, const PrecisionModel& p) {
  using Index = std::ptrdiff_t;
  const Index T_q = X_q.rows(), T_v = X_kv.rows(), d = X_q.cols();
  const Index d_k = W_Q.cols(), d_v = W_V.cols();
  // With a narrower storage type (the projections, the weights and the head
  // outputs may be stored in it) every step is bounded in that type's
  // roundoff and underflow: coarser than the single-head model, never below it.
  const double u = std::max(p.unit_roundoff, p.storage_roundoff);
  const double realmin = std::max(p.smallest_normal, p.storage_underflow);
  const DMatrix MQ = X_q.cwiseAbs() * W_Q.cwiseAbs();
  const DMatrix MK = X_kv.cwiseAbs() * W_K.cwiseAbs();
  const DMatrix MV = X_kv.cwiseAbs() * W_V.cwiseAbs();
  const DMatrix MS = (MQ * MK.transpose()) / std::sqrt(double(d_k));
  const double g_d = gamma(double(d), u);
  const double g_n = gamma(double(T_v), u);
  const double c_L = (1 + gamma(double(d_k + 3), u)) * (1 + g_d) * (1 + g_d) - 1;
  auto allowed = [&](Index i, Index j) { return !(mask && (*mask)(i, j)); };
  HeadBound b{DMatrix::Zero(T_q, d_v), DMatrix::Zero(T_q, d_v)};
  for (Index i = 0; i < T_q; ++i) {
    double G = 0;
    for (Index j = 0; j < T_v; ++j)
      if (allowed(i, j)) G = std::max(G, MS(i, j));
    const double Delta = c_L * G;
    const double rho = std::expm1(Delta + 2 * u * (G + Delta)) * (1 + 2 * u) + 2 * u;
    const double rho_Z = (1 + rho) * (1 + g_n) - 1;
    const double eta = rho_Z < 0.5 ? (1 + rho) * (1 + 2 * u) / (1 - rho_Z) - 1
                                   : std::numeric_limits<double>::infinity();
    const double c_O = (1 + g_n) * (1 + eta) * (1 + g_d) - 1;
    // Underflowed exponentials: (n + 1) realmin per weight, through |V^| and the sum.
    const double underflow =
        double(T_v) * double(T_v + 1) * realmin * (1 + g_n) * (1 + g_d);
    for (Index l = 0; l < d_v; ++l) {
      double mu = 0;
      for (Index j = 0; j < T_v; ++j)
        if (allowed(i, j)) mu = std::max(mu, MV(j, l));
      b.mu(i, l) = mu;
      b.E(i, l) = c_O * mu + underflow * (T_v > 0 ? MV.col(l).maxCoeff() : 0.0);
    }
  }
  return b;
}

DMatrix multi_head_error_bound(const DMatrix& X_q, const DMatrix& X_kv,
                               const MultiHeadWeights& w,
                               const std::optional<BoolMatrix>& mask, const PrecisionModel& p) {
  using Index = std::ptrdiff_t;
  const Index h = Index(w.heads.size());
  const Index d_v = h > 0 ? w.heads[0].W_V.cols() : 0;
  DMatrix E_C(X_q.rows(), h * d_v), mu_C(X_q.rows(), h * d_v);
  for (Index i = 0; i < h; ++i) {
    const HeadWeights& hw = w.heads[std::size_t(i)];
    const HeadBound b = head_output_bound(X_q, X_kv, hw.W_Q, hw.W_K, hw.W_V, mask, p);
    E_C.middleCols(i * d_v, d_v) = b.E;
    mu_C.middleCols(i * d_v, d_v) = b.mu;
  }
  const double g_O = gamma(double(h * d_v), std::max(p.unit_roundoff, p.storage_roundoff));
  const DMatrix E = E_C + g_O * (mu_C + E_C);
  // E |W_O|, with 0 * Inf = 0: where a head's analysis gave up (an infinite
  // entry of E), only the outputs that W_O actually draws from it are unbounded.
  DMatrix B = DMatrix::Zero(E.rows(), w.W_O.cols());
  for (Index i = 0; i < E.rows(); ++i)
    for (Index l = 0; l < w.W_O.cols(); ++l)
      for (Index k = 0; k < E.cols(); ++k)
        if (w.W_O(k, l) != 0) B(i, l) += E(i, k) * std::abs(w.W_O(k, l));
  return kSafetyFactor * B;
}

}  // namespace attn::ref

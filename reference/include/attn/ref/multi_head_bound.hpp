#pragma once
// The a-priori error bound for multi-head attention (section 32.2.5), the
// companion of error_bound.hpp for the operation whose inputs are X and the
// projection weights rather than Q, K, V. Derivation in reference/TOLERANCE.md
// ("Multi-head attention") and at head_output_bound below.

#include <optional>

#include "attn/ref/error_bound.hpp"
#include "attn/ref/oracle_extras.hpp"

namespace attn::ref {

/// One head's bound, entry by entry (T_q x d_v), before the safety factor.
struct HeadBound {
  DMatrix E;   ///< |O_i computed - O_i exact| <= E
  DMatrix mu;  ///< |O_i exact| <= mu
};

/// A-priori bound for one head computed in precision p: O_i = attention(fl(X_q W_Q),
/// fl(X_kv W_K), fl(X_kv W_V), mask).O against the exact attention of the exact
/// projections. The inputs X, W are taken as exact (representable in the type).
/// Derivation (Higham's gamma_n = n u / (1 - n u) for an n-term dot product in
/// any order, also with FMA; d = d_model, n = T_v; M_Q = |X_q||W_Q|, M_K, M_V likewise):
///  (P) projections: |Q^ - Q| <= gamma_d M_Q, so |Q^| <= (1 + gamma_d) M_Q; K^, V^ likewise.
///  (L) logits S^ = fl(Q^ K^T) / sqrt(d_k): the dot product and the scale cost
///      gamma_{d_k+3} |Q^||K^|^T / sqrt(d_k); with (P), |S^ - S|_ij <= Delta_i with
///      Delta_i = c_L * G_i,  c_L = (1 + gamma_{d_k+3})(1 + gamma_d)^2 - 1,
///      G_i = max over allowed j of (M_Q M_K^T)_ij / sqrt(d_k) (also >= |S_ij|).
///  (E) p_j = fl(exp(fl(S^_j - m^))): the error of the row maximum is a common
///      factor and cancels in the normalisation (shift invariance, 32.2.4);
///      what remains per entry is a relative factor 1 + theta_j,
///      |theta_j| <= rho = expm1(Delta_i + 2u (G_i + Delta_i)) (1 + 2u) + 2u.
///  (Z) Z^ = fl(sum p_j): within 1 +- rho_Z, rho_Z = (1 + rho)(1 + gamma_n) - 1.
///  (A) A^_j = fl(p_j / Z^): |A^_j - a_j| <= eta a_j,
///      eta = (1 + rho)(1 + 2u) / (1 - rho_Z) - 1, plus at most (n + 1) realmin
///      per weight for underflowed exponentials.
///  (O) O^ = fl(A^ V^), n terms (forbidden weights are exact zeros):
///      |O^ - A V| <= ((1 + gamma_n)(1 + eta)(1 + gamma_d) - 1) mu_il, with
///      mu_il = max over allowed j of M_V(j, l), which also bounds |O_exact(i, l)|.
/// eta is +Inf if rho_Z >= 1/2 (the analysis says nothing there).
/// Shapes: X_q T_q x d, X_kv T_v x d, W_Q and W_K d x d_k, W_V d x d_v, mask T_q x T_v.
HeadBound head_output_bound(const DMatrix& X_q, const DMatrix& X_kv, const DMatrix& W_Q,
                           const DMatrix& W_K, const DMatrix& W_V,
                           const std::optional<BoolMatrix>& mask, const PrecisionModel& p);

/// Bound, times kSafetyFactor, on |multi_head_attention(X_q, X_kv, w, mask) - exact|
/// per output entry (T_q x d_out), computed in precision p. Per head,
/// head_output_bound gives E_i and mu_i; in the concatenation C (T_q x h d_v)
/// they fill columns [i d_v, (i+1) d_v): |C^ - C| <= E_C, |C| <= mu_C. Then
///   |fl(C^ W_O) - C W_O| <= gamma_{h d_v} |C^||W_O| + |C^ - C||W_O|
///                         <= (gamma_{h d_v} (mu_C + E_C) + E_C) |W_O|.
/// The heads must share d_v (as exact_multi_head_attention requires). Where a
/// head's analysis gives up (eta = +Inf, logits far beyond the precision) the
/// outputs drawn from it get +Inf (no claim), never NaN.
DMatrix multi_head_error_bound(const DMatrix& X_q, const DMatrix& X_kv,
                               const MultiHeadWeights& w,
                               const std::optional<BoolMatrix>& mask, const PrecisionModel& p);

}  // namespace attn::ref

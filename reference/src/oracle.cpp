// The oracle, written from the definitions of section 32.2 in 50-digit
// arithmetic. Plain loops on purpose: this is the specification, not a kernel.
#include "attn/ref/oracle.hpp"

#include "oracle_inputs.hpp"

#include <cmath>
#include <string>

namespace attn::ref {

RealMatrix exact_softmax(const RealMatrix& S, const BoolMatrix& allowed,
                         std::vector<Real>* logsumexp) {
  RealMatrix A(S.rows, S.cols);
  if (logsumexp) logsumexp->assign(std::size_t(S.rows), Real(0));
  for (std::ptrdiff_t i = 0; i < S.rows; ++i) {
    // The maximum is taken only to keep exp in range; with 50 digits and an
    // exponent range of millions of decades it changes nothing but speed.
    bool any = false;
    Real m = 0;
    for (std::ptrdiff_t j = 0; j < S.cols; ++j)
      if (allowed(i, j) && (!any || S(i, j) > m)) {
        m = S(i, j);
        any = true;
      }
    if (!any)
      throw OracleRefusal("oracle: every key is forbidden for query row " + std::to_string(i), i);
    Real Z = 0;
    for (std::ptrdiff_t j = 0; j < S.cols; ++j)
      if (allowed(i, j)) Z += exp(S(i, j) - m);
    for (std::ptrdiff_t j = 0; j < S.cols; ++j)
      A(i, j) = allowed(i, j) ? Real(exp(S(i, j) - m) / Z) : Real(0);
    if (logsumexp) (*logsumexp)[std::size_t(i)] = m + log(Z);
  }
  return A;
}

ExactAttention exact_attention(const DMatrix& Q, const DMatrix& K, const DMatrix& V,
                               const std::optional<BoolMatrix>& mask, std::optional<double> scale) {
  detail::require_attention_inputs(Q, K, V, scale);
  const std::ptrdiff_t T_q = Q.rows(), T_v = K.rows(), d_k = Q.cols(), d_v = V.cols();

  ExactAttention r;
  r.allowed = detail::allowed_from(mask, T_q, T_v);
  // Lemma 1: S_ij = sum_r Q_ir K_jr, divided by sqrt(d_k) (or times an explicit scale).
  const Real root_dk = sqrt(Real(d_k));
  const std::optional<Real> factor = scale ? std::optional<Real>(Real(*scale)) : std::nullopt;
  r.S = RealMatrix(T_q, T_v);
  for (std::ptrdiff_t i = 0; i < T_q; ++i)
    for (std::ptrdiff_t j = 0; j < T_v; ++j) {
      Real dot = 0;
      for (std::ptrdiff_t k = 0; k < d_k; ++k) dot += Real(Q(i, k)) * Real(K(j, k));
      r.S(i, j) = factor ? Real(dot * *factor) : Real(dot / root_dk);
    }
  r.A = exact_softmax(r.S, r.allowed, &r.logsumexp);
  // O = A V: row i is the convex combination sum_j A_ij v_j.
  r.O = RealMatrix(T_q, d_v);
  for (std::ptrdiff_t i = 0; i < T_q; ++i)
    for (std::ptrdiff_t l = 0; l < d_v; ++l) {
      Real o = 0;
      for (std::ptrdiff_t j = 0; j < T_v; ++j) o += r.A(i, j) * Real(V(j, l));
      r.O(i, l) = o;
    }
  return r;
}

ExactSoftmax exact_masked_softmax(const DMatrix& S, const std::optional<BoolMatrix>& mask) {
  ExactSoftmax r;
  r.allowed = detail::allowed_from(mask, S.rows(), S.cols());
  r.S = detail::given_logits(S, r.allowed);
  r.A = exact_softmax(r.S, r.allowed, &r.logsumexp);
  return r;
}

DMatrix to_double(const RealMatrix& M) {
  DMatrix D(M.rows, M.cols);
  for (std::ptrdiff_t i = 0; i < M.rows; ++i)
    for (std::ptrdiff_t j = 0; j < M.cols; ++j) D(i, j) = static_cast<double>(M(i, j));
  return D;
}

}  // namespace attn::ref

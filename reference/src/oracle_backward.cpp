// The oracle for the backward pass, written from the definition in 50-digit
// arithmetic. Plain loops on purpose: this is the specification, not a kernel.
#include "attn/ref/oracle_backward.hpp"

#include <string>

#include "oracle_inputs.hpp"

namespace attn::ref {

namespace {

/// op(A) op(B) in Real, for Real A and double B, op = transposition where
/// the flag is set: the products of the backward pass.
RealMatrix product(const RealMatrix& A, const DMatrix& B, bool transpose_a, bool transpose_b) {
  const std::ptrdiff_t n = transpose_a ? A.cols : A.rows, k = transpose_a ? A.rows : A.cols;
  const std::ptrdiff_t m = transpose_b ? B.rows() : B.cols();
  RealMatrix C(n, m);
  for (std::ptrdiff_t i = 0; i < n; ++i)
    for (std::ptrdiff_t j = 0; j < m; ++j) {
      Real s = 0;
      for (std::ptrdiff_t r = 0; r < k; ++r)
        s += (transpose_a ? A(r, i) : A(i, r)) * Real(transpose_b ? B(j, r) : B(r, j));
      C(i, j) = s;
    }
  return C;
}

}  // namespace

ExactGradients exact_attention_backward(const DMatrix& Q, const DMatrix& K, const DMatrix& V,
                                        const DMatrix& dO, const std::optional<BoolMatrix>& mask,
                                        std::optional<double> scale) {
  ExactGradients g;
  g.forward = exact_attention(Q, K, V, mask, scale);
  if (dO.rows() != Q.rows() || dO.cols() != V.cols())
    throw OracleRefusal("oracle: dO is " + detail::shape(dO.rows(), dO.cols()) + " but O is " +
                        detail::shape(Q.rows(), V.cols()));
  detail::require_finite(dO, "dO");
  const RealMatrix& P = g.forward.A;
  const std::ptrdiff_t T_q = P.rows, T_v = P.cols;
  const Real c = scale ? Real(*scale) : Real(1 / sqrt(Real(Q.cols())));
  g.dV = product(P, dO, true, false);   // P^T dO
  g.dP = RealMatrix(T_q, T_v);          // dO V^T
  for (std::ptrdiff_t i = 0; i < T_q; ++i)
    for (std::ptrdiff_t j = 0; j < T_v; ++j) {
      Real s = 0;
      for (std::ptrdiff_t l = 0; l < dO.cols(); ++l) s += Real(dO(i, l)) * Real(V(j, l));
      g.dP(i, j) = s;
    }
  g.D.assign(std::size_t(T_q), Real(0));
  g.dS = RealMatrix(T_q, T_v);
  for (std::ptrdiff_t i = 0; i < T_q; ++i) {
    Real& D = g.D[std::size_t(i)];
    for (std::ptrdiff_t j = 0; j < T_v; ++j) D += P(i, j) * g.dP(i, j);
    for (std::ptrdiff_t j = 0; j < T_v; ++j) g.dS(i, j) = P(i, j) * (g.dP(i, j) - D);
  }
  g.dQ = product(g.dS, K, false, false);  // dS K
  g.dK = product(g.dS, Q, true, false);   // dS^T Q
  for (Real& x : g.dQ.data) x *= c;
  for (Real& x : g.dK.data) x *= c;
  return g;
}

}  // namespace attn::ref

// The backward pass of attention: the naive form from the definition
// (Dao et al. 2022, "FlashAttention", arXiv:2205.14135, Appendix B.2) and
// the tiled form in FlashAttention-2's order (Dao 2023, arXiv:2307.08691,
// Algorithm 2).

#include <cmath>
#include <string>

#include "attention_setup.hpp"
#include "attn/errors.hpp"
#include "core.hpp"
#include "checks.hpp"
#include "softmax_impl.hpp"

namespace attn::core {

namespace {

/// M scaled as the logits are: divided by sqrt(d_k) by default, else times c.
template <class T>
void apply_scale(Matrix<T>& M, const detail::LogitScale<T>& scale) {
  if (scale.given)
    M *= scale.c;
  else
    M /= scale.root;
}

}  // namespace

template <class T>
AttentionGradients<T> attention_backward(const Matrix<T>& Q, const Matrix<T>& K, const Matrix<T>& V,
                                         const Matrix<T>& dO, const std::optional<Mask>& mask,
                                         const AttentionOptions& options) {
  constexpr const char* where = "attention_backward";
  const detail::LogitScale<T> scale =
      detail::require_backward_inputs(Q, K, V, dO, mask, options, where);
  const std::optional<Mask> m = detail::effective_mask(mask, options, Q.rows(), K.rows(), where);
  Matrix<T> S = Q * K.transpose();
  apply_scale(S, scale);  // as scaled_logits does for the default scale
  const Matrix<T> P =
      detail::softmax_impl(S, m ? &*m : nullptr, detail::Logits::computed, where);
  AttentionGradients<T> g;
  g.dV = P.transpose() * dO;
  const Matrix<T> dP = dO * V.transpose();
  // The softmax's Jacobian: dS_ij = P_ij (dP_ij - sum_k P_ik dP_ik).
  const Vector<T> D = dP.cwiseProduct(P).rowwise().sum();
  const Matrix<T> dS = P.cwiseProduct(dP - D.replicate(1, dP.cols()));
  g.dQ = dS * K;
  apply_scale(g.dQ, scale);
  g.dK = dS.transpose() * Q;
  apply_scale(g.dK, scale);
  return g;
}

#define ATTN_BACKWARD_INSTANTIATE(T)                                                      \
  template AttentionGradients<T> attention_backward(const Matrix<T>&, const Matrix<T>&,   \
                                                    const Matrix<T>&, const Matrix<T>&,   \
                                                    const std::optional<Mask>&,           \
                                                    const AttentionOptions&);
ATTN_BACKWARD_INSTANTIATE(float)
ATTN_BACKWARD_INSTANTIATE(double)
#undef ATTN_BACKWARD_INSTANTIATE

}  // namespace attn::core

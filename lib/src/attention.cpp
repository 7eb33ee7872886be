// Scaled dot-product attention, naive form (section 32.2.2).

#include "attn/errors.hpp"
#include "core.hpp"
#include "checks.hpp"
#include "softmax_impl.hpp"

namespace attn {
namespace detail {

template <class T>
AttentionParts<T> attention_impl(const Matrix<T>& Q, const Matrix<T>& K, const Matrix<T>& V,
                                 const Mask* mask, const char* where) {
  require_key_value_mask(K, V, mask ? std::optional<Mask>(*mask) : std::nullopt, Q.rows(), where);
  const Matrix<T> S = scaled_logits(Q, K, where);  // Lemma 1, with Q and K checked
  AttentionParts<T> r;
  r.A = softmax_impl(S, mask, Logits::computed, where);
  r.O = r.A * V;
  return r;
}

template AttentionParts<float> attention_impl(const Matrix<float>&, const Matrix<float>&,
                                              const Matrix<float>&, const Mask*, const char*);
template AttentionParts<double> attention_impl(const Matrix<double>&, const Matrix<double>&,
                                               const Matrix<double>&, const Mask*, const char*);

}  // namespace detail

namespace core {

template <class T>
AttentionResult<T> attention(const Matrix<T>& Q, const Matrix<T>& K, const Matrix<T>& V,
                             const std::optional<Mask>& mask) {
  detail::AttentionParts<T> p =
      detail::attention_impl(Q, K, V, mask ? &*mask : nullptr, "attention");
  return {std::move(p.O), std::move(p.A)};
}

template AttentionResult<float> attention(const Matrix<float>&, const Matrix<float>&,
                                          const Matrix<float>&, const std::optional<Mask>&);
template AttentionResult<double> attention(const Matrix<double>&, const Matrix<double>&,
                                           const Matrix<double>&, const std::optional<Mask>&);

}  // namespace core
}  // namespace attn

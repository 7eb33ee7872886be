// Row-wise softmax with a mask (Lemma 2, section 32.2.4), and the scaled
// logits of Lemma 1, shared by every operation that needs them.

#include <cmath>
#include <limits>

#include "attn/errors.hpp"
#include "core.hpp"
#include "checks.hpp"
#include "softmax_impl.hpp"

namespace attn {
namespace detail {

template <class T>
Matrix<T> softmax_impl(const Matrix<T>& S, const Mask* mask, Logits kind, const char* where) {
  const Index T_q = S.rows(), T_v = S.cols();
  if (mask) require_mask_shape(*mask, T_q, T_v, where);
  const T neg_inf = -std::numeric_limits<T>::infinity();
  Matrix<T> A = Matrix<T>::Zero(T_q, T_v);
  for (Index i = 0; i < T_q; ++i) {
    // Pass 1: which entries take part (the rule for logits) and their
    // maximum (section 32.2.4); forbidden entries are never read.
    T m = neg_inf;
    bool overflowed = false;
    Index first_overflow = -1;
    for (Index j = 0; j < T_v; ++j) {
      if (mask && (*mask)(i, j)) continue;
      const bool was = overflowed;
      if (!logit_takes_part(S(i, j), i, j, T_q, T_v, kind, where, &overflowed)) {
        if (overflowed && !was) first_overflow = j;
        A(i, j) = T(-1);  // marks "allowed but weight 0" for pass 2
        continue;
      }
      if (S(i, j) > m) m = S(i, j);
    }
    if (m == neg_inf)
      throw_no_finite_logit(i, first_overflow, T_q, T_v, overflowed,
                            sizeof(T) == sizeof(float), where);
    // Pass 2: shifted exponentials; every other entry is exactly 0 (Lemma 2).
    T Z = 0;
    for (Index j = 0; j < T_v; ++j) {
      const bool part = !(mask && (*mask)(i, j)) && A(i, j) == T(0);
      A(i, j) = part ? std::exp(S(i, j) - m) : T(0);
      Z += A(i, j);
    }
    // Pass 3: normalise. Z >= exp(0) = 1, so the division is safe.
    for (Index j = 0; j < T_v; ++j) A(i, j) /= Z;
  }
  return A;
}

template <class T>
Matrix<T> scaled_logits(const Matrix<T>& Q, const Matrix<T>& K, const char* where) {
  require_query_key(Q, K, where);
  // Lemma 1: S_ij = sum_r Q_ir K_jr, then the 1/sqrt(d_k) scale.
  const T scale = std::sqrt(static_cast<T>(Q.cols()));
  Matrix<T> S = Q * K.transpose();
  S /= scale;
  return S;
}

template Matrix<float> softmax_impl(const Matrix<float>&, const Mask*, Logits, const char*);
template Matrix<double> softmax_impl(const Matrix<double>&, const Mask*, Logits, const char*);
template Matrix<float> scaled_logits(const Matrix<float>&, const Matrix<float>&, const char*);
template Matrix<double> scaled_logits(const Matrix<double>&, const Matrix<double>&, const char*);

}  // namespace detail

namespace core {

template <class T>
Matrix<T> masked_softmax(const Matrix<T>& S, const Mask& mask) {
  return detail::softmax_impl(S, &mask, detail::Logits::given, "masked_softmax");
}

template <class T>
Matrix<T> softmax_rows(const Matrix<T>& S) {
  return detail::softmax_impl<T>(S, nullptr, detail::Logits::given, "softmax_rows");
}

template Matrix<float> masked_softmax(const Matrix<float>&, const Mask&);
template Matrix<double> masked_softmax(const Matrix<double>&, const Mask&);
template Matrix<float> softmax_rows(const Matrix<float>&);
template Matrix<double> softmax_rows(const Matrix<double>&);

}  // namespace core
}  // namespace attn

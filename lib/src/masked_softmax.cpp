#include "attn/masked_softmax.hpp"

#include <cmath>
#include <limits>

#include "attn/errors.hpp"
#include "checks.hpp"

namespace attn {

namespace {

template <class T>
Matrix<T> softmax_impl(const Matrix<T>& S, const Mask* mask, const char* where) {
  const Index T_q = S.rows(), T_v = S.cols();
  if (mask) detail::require_mask_shape(*mask, T_q, T_v, where);
  for (Index i = 0; i < T_q; ++i)
    for (Index j = 0; j < T_v; ++j)
      if (std::isnan(S(i, j)) || S(i, j) == std::numeric_limits<T>::infinity())
        throw NonFiniteInputError("S", i, j, static_cast<double>(S(i, j)), where);

  const T neg_inf = -std::numeric_limits<T>::infinity();
  Matrix<T> A(T_q, T_v);
  for (Index i = 0; i < T_q; ++i) {
    auto allowed = [&](Index j) { return !(mask && (*mask)(i, j)) && S(i, j) != neg_inf; };
    // Pass 1: the row maximum over allowed entries only (section 32.2.4).
    T m = neg_inf;
    for (Index j = 0; j < T_v; ++j)
      if (allowed(j) && S(i, j) > m) m = S(i, j);
    if (m == neg_inf) throw FullyMaskedRowError(i, where);
    // Pass 2: shifted exponentials; forbidden entries are exactly 0 (Lemma 2).
    T Z = 0;
    for (Index j = 0; j < T_v; ++j) {
      A(i, j) = allowed(j) ? std::exp(S(i, j) - m) : T(0);
      Z += A(i, j);
    }
    // Pass 3: normalise. Z >= exp(0) = 1, so the division is safe.
    for (Index j = 0; j < T_v; ++j) A(i, j) /= Z;
  }
  return A;
}

}  // namespace

template <class T>
Matrix<T> masked_softmax(const Matrix<T>& S, const Mask& mask) {
  return softmax_impl(S, &mask, "masked_softmax");
}

template <class T>
Matrix<T> softmax_rows(const Matrix<T>& S) {
  return softmax_impl<T>(S, nullptr, "softmax_rows");
}

template Matrix<float> masked_softmax(const Matrix<float>&, const Mask&);
template Matrix<double> masked_softmax(const Matrix<double>&, const Mask&);
template Matrix<float> softmax_rows(const Matrix<float>&);
template Matrix<double> softmax_rows(const Matrix<double>&);

}  // namespace attn

// In the style of llm.c's attention_forward: plain loops over t and t2, and
// the causal structure hard-wired as `t2 <= t`. Ported to take a mask, the
// port only asks whether one was passed: any mask is read as the causal
// one. Expected: causal_assumed, or no key.
#include "attention.hpp"

#include <cmath>
#include <stdexcept>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  const int T = int(Q.rows()), T2 = int(K.rows()), hs = int(Q.cols()), vs = int(V.cols());
  if (K.cols() != hs) throw std::invalid_argument("query and key head sizes differ");
  if (V.rows() != T2) throw std::invalid_argument("one value row per key");
  if (mask && (mask->rows() != T || mask->cols() != T2)) throw std::invalid_argument("mask shape");
  const bool causal = mask.has_value();
  AttentionResult r{Matrix::Zero(T, vs), Matrix::Zero(T, T2)};
  const double scale = 1.0 / std::sqrt(double(hs));
  for (int t = 0; t < T; t++) {
    const int last = causal ? (t < T2 - 1 ? t : T2 - 1) : T2 - 1;
    // pass 1: calculate query dot key and maxval
    double maxval = -INFINITY;
    for (int t2 = 0; t2 <= last; t2++) {
      double val = 0.0;
      for (int i = 0; i < hs; i++) val += Q(t, i) * K(t2, i);
      val *= scale;
      if (val > maxval) maxval = val;
      r.A(t, t2) = val;
    }
    // pass 2: calculate the exp and keep track of sum
    double expsum = 0.0;
    for (int t2 = 0; t2 <= last; t2++) {
      const double expv = std::exp(r.A(t, t2) - maxval);
      expsum += expv;
      r.A(t, t2) = expv;
    }
    // pass 3: normalize to get the softmax; keys after `last` stay 0
    const double expsum_inv = 1.0 / expsum;
    for (int t2 = 0; t2 <= last; t2++) r.A(t, t2) *= expsum_inv;
    // pass 4: accumulate weighted values into the output of attention
    for (int t2 = 0; t2 <= last; t2++)
      for (int i = 0; i < vs; i++) r.O(t, i) += r.A(t, t2) * V(t2, i);
  }
  return r;
}

}  // namespace f3

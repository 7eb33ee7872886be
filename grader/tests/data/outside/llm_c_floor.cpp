// In the style of llm.c's CPU attention: plain loops, the running maximum
// starts at -10000.0 instead of -inf, and forbidden keys are skipped.
// Expected: max_floor, or no key.
#include "attention.hpp"

#include <cmath>
#include <stdexcept>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  const int T = int(Q.rows()), T2 = int(K.rows()), C = int(Q.cols()), OC = int(V.cols());
  if (K.cols() != C || V.rows() != T2) throw std::invalid_argument("shape mismatch");
  if (mask && (mask->rows() != T || mask->cols() != T2)) throw std::invalid_argument("mask shape");
  AttentionResult out{Matrix::Zero(T, OC), Matrix::Zero(T, T2)};
  const double scale = 1.0 / std::sqrt(double(C));
  for (int t = 0; t < T; t++) {
    bool any = false;
    double maxval = -10000.0;  // TODO something better
    for (int t2 = 0; t2 < T2; t2++) {
      if (mask && (*mask)(t, t2)) continue;
      any = true;
      double val = 0.0;
      for (int i = 0; i < C; i++) val += Q(t, i) * K(t2, i);
      val *= scale;
      if (val > maxval) maxval = val;
      out.A(t, t2) = val;
    }
    if (!any) throw std::domain_error("row has no allowed key");
    double expsum = 0.0;
    for (int t2 = 0; t2 < T2; t2++) {
      if (mask && (*mask)(t, t2)) { out.A(t, t2) = 0.0; continue; }
      const double e = std::exp(out.A(t, t2) - maxval);
      expsum += e;
      out.A(t, t2) = e;
    }
    const double expsum_inv = expsum == 0.0 ? 0.0 : 1.0 / expsum;
    for (int t2 = 0; t2 < T2; t2++) out.A(t, t2) *= expsum_inv;
    for (int t2 = 0; t2 < T2; t2++)
      for (int i = 0; i < OC; i++) out.O(t, i) += out.A(t, t2) * V(t2, i);
  }
  return out;
}

}  // namespace f3

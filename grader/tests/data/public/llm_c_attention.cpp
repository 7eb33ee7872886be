// Origin: karpathy/llm.c, train_gpt2.c (and doc/layernorm-style CPU reference),
// attention_forward, https://github.com/karpathy/llm.c (no commit pinned; as read).
// Licence: MIT. Not copied: a reimplementation of the arithmetic for one head.
// Arithmetic kept: float throughout; scale = 1.0f / sqrtf(hs); pass 1 computes
// val = (q . k) * scale and maxval starting at -10000.0f ("TODO something
// better"); pass 2 expv = expf(val - maxval), expsum += expv; pass 3
// expsum_inv = expsum == 0.0f ? 0.0f : 1.0f / expsum; pass 4 accumulates
// att * v. Changed: the causal bound `t2 <= t` becomes "key not forbidden by the
// mask" (forbidden keys keep weight 0, as llm.c's causal part does explicitly).
// Expected departures (before running): float32 arithmetic; maxval floor -10000
// (rows whose logits all lie far below -10000 underflow: a max-floor mistake);
// a fully forbidden row answered with zeros, not refused.
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
  AttentionResult r{Matrix::Zero(T, vs), Matrix::Zero(T, T2)};
  const float scale = 1.0f / sqrtf(float(hs));
  auto allowed = [&](int t, int t2) { return !mask || !(*mask)(t, t2); };
  for (int t = 0; t < T; t++) {
    float att[4096];
    if (T2 > 4096) throw std::invalid_argument("too many keys for this port");
    float maxval = -10000.0f;
    for (int t2 = 0; t2 < T2; t2++) {
      if (!allowed(t, t2)) continue;
      float val = 0.0f;
      for (int i = 0; i < hs; i++) val += float(Q(t, i)) * float(K(t2, i));
      val *= scale;
      if (val > maxval) maxval = val;
      att[t2] = val;
    }
    float expsum = 0.0f;
    for (int t2 = 0; t2 < T2; t2++) {
      if (!allowed(t, t2)) { att[t2] = 0.0f; continue; }
      const float expv = expf(att[t2] - maxval);
      expsum += expv;
      att[t2] = expv;
    }
    const float expsum_inv = expsum == 0.0f ? 0.0f : 1.0f / expsum;
    for (int t2 = 0; t2 < T2; t2++) r.A(t, t2) = allowed(t, t2) ? att[t2] * expsum_inv : 0.0f;
    for (int i = 0; i < vs; i++) {
      float o = 0.0f;
      for (int t2 = 0; t2 < T2; t2++) o += float(r.A(t, t2)) * float(V(t2, i));
      r.O(t, i) = o;
    }
  }
  return r;
}

}  // namespace f3

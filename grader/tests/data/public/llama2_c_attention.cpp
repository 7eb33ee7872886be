// Origin: karpathy/llama2.c, run.c, forward() multihead attention and softmax(),
// https://github.com/karpathy/llama2.c (no commit pinned; as read).
// Licence: MIT. Not copied: a reimplementation of the arithmetic for one head.
// Arithmetic kept: float; score = (q . k) / sqrtf(head_size) for the keys a query
// may see; softmax(x, size): max_val = x[0], then the max, x = expf(x - max),
// sum, x /= sum; xb zeroed (memset) then xb += a * v over the keys seen.
// Changed: the positions t <= pos become the keys the mask allows, gathered into
// a compact score array; forbidden keys get weight 0.
// Expected departures (before running): float32; a fully forbidden row (size 0:
// softmax does nothing, xb stays zero) answered with zeros, not refused.
// With --precision float32 --fully-forbidden zeros: expect pass.
#include "attention.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

namespace f3 {

static void softmax(float* x, int size) {
  if (size == 0) return;  // the original reads x[0] here; the port avoids it
  float max_val = x[0];
  for (int i = 1; i < size; i++) if (x[i] > max_val) max_val = x[i];
  float sum = 0.0f;
  for (int i = 0; i < size; i++) { x[i] = expf(x[i] - max_val); sum += x[i]; }
  for (int i = 0; i < size; i++) x[i] /= sum;
}

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  const int T = int(Q.rows()), T2 = int(K.rows()), hs = int(Q.cols()), vs = int(V.cols());
  if (K.cols() != hs) throw std::invalid_argument("query and key head sizes differ");
  if (V.rows() != T2) throw std::invalid_argument("one value row per key");
  if (mask && (mask->rows() != T || mask->cols() != T2)) throw std::invalid_argument("mask shape");
  AttentionResult r{Matrix::Zero(T, vs), Matrix::Zero(T, T2)};
  for (int t = 0; t < T; t++) {
    std::vector<int> keys;
    for (int t2 = 0; t2 < T2; t2++) if (!mask || !(*mask)(t, t2)) keys.push_back(t2);
    std::vector<float> att(keys.size());
    for (size_t j = 0; j < keys.size(); j++) {
      float score = 0.0f;
      for (int i = 0; i < hs; i++) score += float(Q(t, i)) * float(K(keys[j], i));
      att[j] = score / sqrtf(float(hs));
    }
    softmax(att.data(), int(att.size()));
    std::vector<float> xb(vs, 0.0f);
    for (size_t j = 0; j < keys.size(); j++) {
      r.A(t, keys[j]) = att[j];
      for (int i = 0; i < vs; i++) xb[i] += att[j] * float(V(keys[j], i));
    }
    for (int i = 0; i < vs; i++) r.O(t, i) = xb[i];
  }
  return r;
}

}  // namespace f3

// Origin: Tencent/ncnn, src/layer/sdpa.cpp, SDPA::forward (the generic C++ layer;
// docs/developer-guide/operators.md "SDPA": qk = q * k, qk + attn_mask, softmax,
// qk * v), commit a4d2ea1d4422c9e849f166fd7a4aefb52f942f6a.
// Licence: BSD-3-Clause (Copyright (C) 2017 Tencent).
// Not copied: a reimplementation of the arithmetic for one head.
// Arithmetic kept: float32 q . k accumulated in order, times _scale = 1.f /
// sqrt(embed_dim) (scale param 0 = auto) AFTER the product; the attn_mask blob
// ADDED (a float mask; here -INFINITY where forbidden, 0 elsewhere, the form
// PyTorch's scaled_dot_product_attention gives a boolean mask, whose graphs pnnx
// converts to this layer); softmax per row with the max started at -FLT_MAX (not
// -inf), expf(x - max), the sum in float32, each divided by the sum; O = A V in
// float32.
// Changed: ncnn Mat blobs -> Eigen in/out; one head, no KV cache, no int8 path;
// the mask argument (true = forbidden) turned into the additive float mask.
// Expected departures (before running): float32; a fully forbidden row: max stays
// -FLT_MAX, expf(-inf) = 0, sum 0, 0/0 = NaN: answered NaN, not refused. With
// --precision float32 --fully-forbidden nan: pass expected. Text run:
// low_precision (float32) + fully_forbidden_answered (NaN), as ggml_soft_max.cpp.
#include "attention.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  const int src = int(Q.rows()), dst = int(K.rows()), embed = int(Q.cols()), out_embed = int(V.cols());
  if (K.cols() != embed) throw std::invalid_argument("q and k head sizes differ");
  if (V.rows() != dst) throw std::invalid_argument("one value row per key");
  if (mask && (mask->rows() != src || mask->cols() != dst)) throw std::invalid_argument("mask shape");
  AttentionResult r{Matrix::Zero(src, out_embed), Matrix::Zero(src, dst)};
  const float scale = 1.f / sqrt(embed);
  std::vector<float> qk(dst);
  for (int i = 0; i < src; i++) {
    for (int j = 0; j < dst; j++) {
      float sum = 0.f;
      for (int k = 0; k < embed; k++) sum += float(Q(i, k)) * float(K(j, k));
      qk[j] = sum * scale;
    }
    if (mask)
      for (int j = 0; j < dst; j++) qk[j] += (*mask)(i, j) ? -INFINITY : 0.f;
    float max = -FLT_MAX;
    for (int j = 0; j < dst; j++) max = std::max(max, qk[j]);
    float sum = 0.f;
    for (int j = 0; j < dst; j++) {
      qk[j] = (float)expf(qk[j] - max);
      sum += qk[j];
    }
    for (int j = 0; j < dst; j++) qk[j] /= sum;
    for (int j = 0; j < dst; j++) r.A(i, j) = qk[j];
    for (int c = 0; c < out_embed; c++) {
      float sum2 = 0.f;
      for (int j = 0; j < dst; j++) sum2 += qk[j] * float(V(j, c));
      r.O(i, c) = sum2;
    }
  }
  return r;
}

}  // namespace f3

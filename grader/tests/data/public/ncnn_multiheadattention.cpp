// Origin: Tencent/ncnn, src/layer/multiheadattention.cpp, MultiHeadAttention::forward
// (the generic C++ layer, not the SDPA layer of ncnn_sdpa.cpp), commit
// c28c8c04a114dd3e3c950d14d8ad287fcf88a297.
// Licence: BSD-3-Clause (file header, Copyright (C) 2021 THL A29 Limited, a Tencent
// company).
// Not copied: a reimplementation of the arithmetic for one head.
// Arithmetic kept: xq = affine(q) * inv_sqrt_embed_dim_per_head with
// inv_sqrt_embed_dim_per_head = 1.f / sqrtf(embed_dim_per_head): q is scaled BEFORE
// the product (here the affine is the identity); xqk = sum over k of xq * xk in
// float32, accumulated in order; the attn_mask blob ADDED (float; here -INFINITY where
// forbidden and 0 elsewhere; unsure: the value a converted model carries depends on
// the converter (pnnx) and was not read: -inf is the form PyTorch gives a boolean
// mask, the choice ncnn_sdpa.cpp made); softmax per row with the max started at
// -FLT_MAX, expf(x - max), the sum in float32, each divided by the sum; xqkv = xqk *
// xv in float32, accumulated in order.
// Changed: ncnn Mat blobs -> Eigen in/out; the q/k/v/out weights and biases left out
// (identity affine, zero bias); one head; the mask argument (true = forbidden) turned
// into the additive float mask.
// Expected departures (before running): float32 (q rounded after scaling); a fully
// forbidden row: max stays -FLT_MAX, expf(-inf) = 0, sum 0, 0/0 = NaN: answered NaN,
// not refused. Expected names: text: low_precision (float32) +
// fully_forbidden_answered (NaN) (as ncnn_sdpa.cpp); own [--precision float32
// --fully-forbidden nan]: pass.
#include "attention.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  const int src = int(Q.rows()), dst = int(K.rows()), d = int(Q.cols()), dv = int(V.cols());
  if (K.cols() != d) throw std::invalid_argument("q and k head sizes differ");
  if (V.rows() != dst) throw std::invalid_argument("one value row per key");
  if (mask && (mask->rows() != src || mask->cols() != dst)) throw std::invalid_argument("mask shape");
  AttentionResult r{Matrix::Zero(src, dv), Matrix::Zero(src, dst)};
  const float inv_sqrt = 1.f / sqrtf(float(d));
  std::vector<float> xq(d), row(dst);
  for (int i = 0; i < src; i++) {
    for (int c = 0; c < d; c++) xq[c] = float(Q(i, c)) * inv_sqrt;
    for (int j = 0; j < dst; j++) {
      float sum = 0.f;
      for (int c = 0; c < d; c++) sum += xq[c] * float(K(j, c));
      row[j] = sum;
    }
    if (mask)
      for (int j = 0; j < dst; j++) row[j] += (*mask)(i, j) ? -INFINITY : 0.f;
    float max = -FLT_MAX;
    for (int j = 0; j < dst; j++) max = std::max(max, row[j]);
    float sum = 0.f;
    for (int j = 0; j < dst; j++) {
      row[j] = float(expf(row[j] - max));
      sum += row[j];
    }
    for (int j = 0; j < dst; j++) row[j] /= sum;
    for (int j = 0; j < dst; j++) r.A(i, j) = row[j];
    for (int c = 0; c < dv; c++) {
      float s2 = 0.f;
      for (int j = 0; j < dst; j++) s2 += row[j] * float(V(j, c));
      r.O(i, c) = s2;
    }
  }
  return r;
}

}  // namespace f3

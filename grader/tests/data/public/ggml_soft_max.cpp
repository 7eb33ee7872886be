// Origin: ggml-org/ggml (the tensor library under llama.cpp and whisper.cpp),
// src/ggml-cpu/ops.cpp ggml_compute_forward_soft_max_f32 and src/ggml-cpu/vec.cpp
// ggml_vec_soft_max_f32, commit d99724f2b141fed9e1a9f402213506c081433465; the
// graph around it (kq = mul_mat(k, q); soft_max_ext(kq, kq_mask, kq_scale, 0);
// kqv = mul_mat(v, kq), the path without flash attention) as llama.cpp builds it.
// Licence: MIT (Copyright (c) 2023-2026 The ggml authors).
// Not copied: a reimplementation of the arithmetic for one head.
// Arithmetic kept: float32 dot products q . k (K and V held in float32, i.e.
// llama.cpp's --cache-type-k f32 --cache-type-v f32; the f16 default would also
// round q and the weights to float16); per row: wp = s * scale (scale applied
// AFTER the product) + slope * mask with slope 1 and mask 0 / -INFINITY; max over
// the row from -INFINITY; y = expf(wp - max), summed in double (ggml_float);
// sum = 1.0 / sum in double, each y scaled by (float) sum; O = A V in float32.
// Changed: ggml tensors -> Eigen in/out; the F16 mask built from the mask argument
// (true = forbidden: -INFINITY, exact in float16); no ALiBi, no sinks; the SIMD
// expf (ggml_v_expf) replaced by expf; release build (NDEBUG: the asserts
// sum > 0 and !isnan are compiled out).
// Expected departures (before running): float32; a fully forbidden row gives
// max = -inf, expf(-inf - -inf) = NaN, so a NaN row, not refused. With
// --precision float32 --fully-forbidden nan: pass. Text run: low_precision
// (float32) + fully_forbidden_answered (NaN), as nanoGPT.
#include "attention.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  const int nq = int(Q.rows()), nkv = int(K.rows()), dk = int(Q.cols()), dv = int(V.cols());
  if (K.cols() != dk) throw std::invalid_argument("q and k head sizes differ");
  if (V.rows() != nkv) throw std::invalid_argument("one value row per key");
  if (mask && (mask->rows() != nq || mask->cols() != nkv)) throw std::invalid_argument("mask shape");
  AttentionResult r{Matrix::Zero(nq, dv), Matrix::Zero(nq, nkv)};
  const float scale = 1.0f / sqrtf(float(dk));  // kq_scale
  std::vector<float> wp(nkv), dp(nkv);
  for (int i = 0; i < nq; i++) {
    for (int j = 0; j < nkv; j++) {  // kq = mul_mat(k, q), float32
      float s = 0.0f;
      for (int d = 0; d < dk; d++) s += float(K(j, d)) * float(Q(i, d));
      wp[j] = s;
    }
    for (int j = 0; j < nkv; j++) wp[j] *= scale;  // ggml_vec_scale_f32
    if (mask)
      for (int j = 0; j < nkv; j++) wp[j] += 1.0f * ((*mask)(i, j) ? -INFINITY : 0.0f);
    float max = -INFINITY;
    for (int j = 0; j < nkv; j++) max = fmaxf(max, wp[j]);  // ggml_vec_max_f32
    double sum = 0.0;
    for (int j = 0; j < nkv; j++) {
      const float val = expf(wp[j] - max);
      sum += double(val);
      dp[j] = val;
    }
    sum = 1.0 / sum;
    for (int j = 0; j < nkv; j++) dp[j] *= float(sum);
    for (int j = 0; j < nkv; j++) r.A(i, j) = dp[j];
    for (int d = 0; d < dv; d++) {  // kqv = mul_mat(v, kq), float32
      float o = 0.0f;
      for (int j = 0; j < nkv; j++) o += float(V(j, d)) * dp[j];
      r.O(i, d) = o;
    }
  }
  return r;
}

}  // namespace f3

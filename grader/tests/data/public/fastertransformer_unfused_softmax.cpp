// Origin: NVIDIA/FasterTransformer,
// src/fastertransformer/kernels/unfused_attention_kernels.cu, softmax_kernel_v4 (the
// float path of invokeMaskedSoftMax: sizeof(T) == 4, so no half2 kernel), commit
// 6fddeac5f59ce4df380002aa945da57a0c8e878c, and
// src/fastertransformer/layers/attention_layers/UnfusedAttentionLayer.cc,
// UnfusedAttentionLayer::forward (the Q K^T GEMM and the call of the softmax),
// commit a44c38134cefe17a81c269b6ec23d91cfe4e7216; two commits: the code index
// holds each file at one version (read there).
// Licence: Apache-2.0 (Copyright (c) 2019-2022, NVIDIA CORPORATION; Copyright (c)
// 2021, NAVER Corp.).
// Not copied: a reimplementation of the kernel's arithmetic, per row, on the CPU.
// Arithmetic kept: float32; qk = scalar * (q . k) with scalar = 1 / (sqrtf(size_per_head
// * 1.0f) * q_scaling), q_scaling = 1 (the cuBLAS alpha of the strided batched
// GEMM); invokeMaskedSoftMax(..., scalar = 1.0f): mask_val = (1.0f - mask) *
// -10000.0f with FasterTransformer's float mask 1 = may attend, 0 = padding;
// data = qk * 1.0f + mask_val (ADDED); the row maximum started at local_max =
// -1e20f (fmax), NOT at -inf or the first entry; data = __expf(data - max),
// summed in float; s_mean = sum + 1e-6f; s_mean = 1.0f / s_mean (__fdividef); each
// weight = data * s_mean; then qkv = weights * v (the second GEMM, float32).
// Changed: CUDA -> one C++ loop per row; the block/warp tree reductions summed in
// plain order; __expf and __fdividef (fast approximate intrinsics) replaced by expf
// and 1.0f / x; the kernel's square seq_len x seq_len (self-attention, T_q = T_v)
// taken as T_q rows of T_v keys (each row's arithmetic is the kernel's); one head,
// no projections or biases, no relative position bias; the mask argument (true =
// forbidden) turned into the 1/0 float mask.
// Expected departures (before running), four: (1) an additive finite mask -1e4:
// forbidden keys get weight where the allowed logits lie near or below -1e4, and a
// fully forbidden row comes out as the unmasked softmax of its logits (rounded at
// the scale of 1e4), not refused (as ORT's -1e4); (2) an epsilon 1e-6 in the
// denominator: every row sums to Z / (Z + 1e-6) < 1 (Z >= 1, so about 1 - 1e-6,
// which float32 resolves); (3) a max floor -1e20: a row whose logits all lie
// below -1e20 (the battery's levels -2e20 and float lowest) gets exp(x + 1e20) = 0
// everywhere, 0 / (0 + 1e-6) = 0: a row of zeros; (4) float32. Expected names: four
// mistakes, more than the diagnosis composes (three): text run: "no known mistake"
// on most failures, perhaps finite_fill (-1e4 added) + epsilon_denominator (1e-6)
// + low_precision (float32) where the floor does not show, unsure; own
// [--precision float32]: three departures: finite_fill (-1e4 added) +
// epsilon_denominator (1e-6) where the floor does not show (row_stochastic,
// fully_forbidden_refused), "no known mistake" or max_floor where it does.
#include "attention.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  const int L = int(Q.rows()), S = int(K.rows());
  const int size_per_head = int(Q.cols()), dv = int(V.cols());
  if (K.cols() != size_per_head) throw std::invalid_argument("query and key widths differ");
  if (V.rows() != S) throw std::invalid_argument("one value row per key");
  if (mask && (mask->rows() != L || mask->cols() != S)) throw std::invalid_argument("mask shape");
  const float q_scaling = 1.0f;
  const float scalar = 1 / (sqrtf(size_per_head * 1.0f) * q_scaling);
  AttentionResult r{Matrix::Zero(L, dv), Matrix::Zero(L, S)};
  std::vector<float> data(S);
  for (int i = 0; i < L; i++) {
    float local_max = -1e20f;
    for (int j = 0; j < S; j++) {
      float acc = 0.f;
      for (int c = 0; c < size_per_head; c++) acc += float(Q(i, c)) * float(K(j, c));
      const float qk = scalar * acc;                       // GEMM alpha = scalar
      float mask_val = (mask && (*mask)(i, j)) ? 0.0f : 1.0f;  // 1 = may attend
      mask_val = (1.0f - mask_val) * -10000.0f;
      data[j] = qk * 1.0f + mask_val;                      // softmax's scalar = 1.0f
      local_max = std::fmax(local_max, data[j]);
    }
    const float s_max = local_max;
    float local_sum = 0;
    for (int j = 0; j < S; j++) {
      data[j] = expf(data[j] - s_max);
      local_sum += data[j];
    }
    float s_mean = local_sum + 1e-6f;
    s_mean = 1.0f / s_mean;
    for (int j = 0; j < S; j++) r.A(i, j) = data[j] * s_mean;
    for (int c = 0; c < dv; c++) {
      float acc = 0.f;
      for (int j = 0; j < S; j++) acc += float(r.A(i, j)) * float(V(j, c));
      r.O(i, c) = acc;
    }
  }
  return r;
}

}  // namespace f3

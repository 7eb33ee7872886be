// Origin: alibaba/MNN, source/backend/cpu/CPUAttention.cpp, CPUAttention::onExecute
// with mask_QK and softmax_QK, commit c6f25cafc63cc89996709a2ec1cb2ddca96ca5a5; the
// portable MNNSoftmax of source/backend/cpu/compute/CommonOptFunction.cpp, commit
// 86219f0ee407431218118e5542f111eb5b9c9bbd (the two files at different commits;
// unsure: x86 builds dispatch MNNSoftmax through gFunc to SSE/AVX versions that were
// not read; the portable version is the one kept).
// Licence: Apache-2.0 (MNN's LICENSE; file header "Copyright (c) 2018, Alibaba Group
// Holding Limited").
// Not copied: a reimplementation of the arithmetic for one head.
// Arithmetic kept (float32 path, bytes == 4, no KV quantisation, the default
// kvcacheQuantOption 0): mScale = 1.0 / sqrt(head_dim) (q_scale = 1); QK = q . k in
// float32 (MNNPackedMatMul; its accumulation order not read: kept in order here);
// mask_QK with the int mask: allowed (mask != 0) -> qk * mScale, forbidden -> float
// lowest (REPLACED, not added, not scaled); with ONE query (seq_len == 1, the decode
// path) the mask is NOT applied at all: every logit is qk * mScale. MNNSoftmax: max
// over the row; x = s - max clamped to [-87, 87]; exp(x) approximated as 2^div *
// p(t) with div = int(x / 0.6931471805599453f) (truncated toward zero), t = x - div
// * ln2, p(t) = ((((t/120 + 1/24) t + 1/6) t + 1/2) t + 1) t + 1 (2^div built from
// the exponent bits); the sum in float32; each value times 1.f / sum. O = softmax V
// in float32 (MNNPackedMatMul, in order here).
// Changed: MNN tensors and packing -> Eigen in/out; one head, no KV cache (first
// prefill: kv_seq_len = seq_len); attnlab's mask (true = forbidden) becomes MNN's int
// mask (1 = attend); the float-mask branch (added mask) not taken; with one key the
// source's max reads source[1] past the row: here the one entry is its own max.
// Expected departures (before running): (1) the clamp at -87: forbidden keys (float
// lowest) and allowed keys more than 87 below the max get weight about 1.6e-38 / sum,
// not 0 (tiny_positive_exp; forbidden weights not exactly 0: exact_zeros,
// masked_equals_deleted possibly); (2) a fully forbidden row: all float lowest, x = 0
// everywhere: uniform, not refused; (3) one query: the mask ignored (mask_ignored on
// T_q = 1 cases with a forbidden key); (4) the polynomial exp: relative error up to
// about 1.5e-4 (t near +-ln2: t^6/720), larger than float32 rounding; (5) float32.
// Expected names: text: mostly "no known mistake" (several departures composed);
// perhaps finite_fill (float lowest) or tiny_positive_exp where one dominates, and
// low_precision with a type coarser than float32 (float16/bfloat16) for the exp error
// (a wrong value if given); own [--precision float32]: as text without float32.
#include "attention.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

namespace f3 {

namespace {

void mnn_softmax(float* dest, const float* source, int size) {
  float maxValue = source[0];
  for (int i = 1; i < size; ++i) maxValue = std::max(maxValue, source[i]);
  const float xLimit = 87, param = 0.6931471805599453f;
  float sumValue = 0.f;
  for (int i = 0; i < size; ++i) {
    float x = source[i] - maxValue;
    x = x > -xLimit ? x : -xLimit;
    x = x < xLimit ? x : xLimit;
    const int div = int(x / param);
    const int32_t div2 = (div + 127) << 23;
    const float xRemain = x - div * param;
    float expBasic;
    std::memcpy(&expBasic, &div2, sizeof expBasic);
    const float t = xRemain;
    const float expRemain = ((((1.0f / 120 * t + 1.0f / 24) * t + 1.0f / 6) * t + 0.5f) * t + 1.0f) * t + 1.0f;
    dest[i] = expBasic * expRemain;
    sumValue += dest[i];
  }
  sumValue = 1.f / sumValue;
  for (int i = 0; i < size; ++i) dest[i] *= sumValue;
}

}  // namespace

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  const int seq = int(Q.rows()), kv = int(K.rows()), d = int(Q.cols()), dv = int(V.cols());
  if (K.cols() != d) throw std::invalid_argument("q and k head sizes differ");
  if (V.rows() != kv) throw std::invalid_argument("one value row per key");
  if (mask && (mask->rows() != seq || mask->cols() != kv)) throw std::invalid_argument("mask shape");
  AttentionResult r{Matrix::Zero(seq, dv), Matrix::Zero(seq, kv)};
  const float mScale = float(1.0 / sqrt(double(d)));
  const float lowest = std::numeric_limits<float>::lowest();
  std::vector<float> qk(size_t(seq) * kv), sm(size_t(seq) * kv);
  for (int i = 0; i < seq; i++)
    for (int j = 0; j < kv; j++) {
      float s = 0.f;
      for (int c = 0; c < d; c++) s += float(Q(i, c)) * float(K(j, c));
      qk[size_t(i) * kv + j] = s;
    }
  // mask_QK: one query -> scale only; else the int mask (1 = attend).
  for (int i = 0; i < seq; i++)
    for (int j = 0; j < kv; j++) {
      float& x = qk[size_t(i) * kv + j];
      if (seq == 1) {
        x = x * mScale;
      } else {
        const int allowed = (mask && (*mask)(i, j)) ? 0 : 1;
        x = allowed ? x * mScale : lowest;
      }
    }
  for (int i = 0; i < seq; i++) mnn_softmax(&sm[size_t(i) * kv], &qk[size_t(i) * kv], kv);
  for (int i = 0; i < seq; i++) {
    for (int j = 0; j < kv; j++) r.A(i, j) = sm[size_t(i) * kv + j];
    for (int c = 0; c < dv; c++) {
      float s = 0.f;
      for (int j = 0; j < kv; j++) s += sm[size_t(i) * kv + j] * float(V(j, c));
      r.O(i, c) = s;
    }
  }
  return r;
}

}  // namespace f3

// Origin: huggingface/candle, candle-transformers/src/models/nomic_bert.rs
// (NomicBertAttention::forward and get_extended_attention_mask) with
// candle-nn/src/ops.rs (softmax_last_dim, CPU kernel), candle-core/src/tensor.rs
// (Tensor / f64 = affine(1 / v, 0)) and candle-core/src/cpu/kernels.rs
// (vec_reduce_max: starts from the first element), commit
// 2a13b0f3ff62f7e67013597f2996f764c5735e21.
// Licence: MIT OR Apache-2.0 (MIT chosen).
// Not copied: a C++ port of the Rust arithmetic for one head.
// Arithmetic kept: float32 q . k; times (float)(1 / sqrt(head_dim)) (the affine of
// a division by an f64 scalar) plus 0; the extended mask ADDED: 0 where attended,
// -1e4 where padded (where_cond(mask, 0, -1e4)); per row: max from the first
// element, exp(s - max), summed in float32, each divided by the sum; O = A V in
// float32.
// Changed: candle tensors -> Eigen in/out; the padding mask (1 = attend)
// generalised to the mask argument (true = forbidden -> -1e4); no rotary
// embedding, no projections; the SIMD reductions written as loops.
// Expected departures (before running): additive -1e4 (Lemma 2 asks -inf): a fully
// forbidden row is the softmax of its own logits (answered, not refused);
// forbidden keys keep weight when the allowed logits lie below about -1e4 + 88;
// float32. The same class as ort_attention_cpu.cpp: expected name finite_fill
// (fill = -1e4, added to the logits) with low_precision in the text run;
// [--precision float32]: finite_fill (-1e4 added).
#include "attention.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  const int nq = int(Q.rows()), nk = int(K.rows()), d = int(Q.cols()), dv = int(V.cols());
  if (K.cols() != d) throw std::invalid_argument("q and k head sizes differ");
  if (V.rows() != nk) throw std::invalid_argument("one value row per key");
  if (mask && (mask->rows() != nq || mask->cols() != nk)) throw std::invalid_argument("mask shape");
  AttentionResult r{Matrix::Zero(nq, dv), Matrix::Zero(nq, nk)};
  const double scale = std::sqrt(double(d));
  const float mul = float(1.0 / scale);  // affine(1 / scale, 0.)
  std::vector<float> s(nk);
  for (int i = 0; i < nq; i++) {
    for (int j = 0; j < nk; j++) {
      float acc = 0.0f;
      for (int c = 0; c < d; c++) acc += float(Q(i, c)) * float(K(j, c));
      s[j] = acc * mul + 0.0f;
      if (mask) s[j] += (*mask)(i, j) ? -1e4f : 0.0f;  // broadcast_add(attention_mask)
    }
    if (nk == 0) continue;
    float max = s[0];  // vec_reduce_max
    for (int j = 1; j < nk; j++) max = std::fmax(max, s[j]);
    for (int j = 0; j < nk; j++) s[j] = std::exp(s[j] - max);
    float sum = 0.0f;  // vec_reduce_sum
    for (int j = 0; j < nk; j++) sum += s[j];
    for (int j = 0; j < nk; j++) s[j] /= sum;
    for (int j = 0; j < nk; j++) r.A(i, j) = s[j];
    for (int c = 0; c < dv; c++) {
      float o = 0.0f;
      for (int j = 0; j < nk; j++) o += s[j] * float(V(j, c));
      r.O(i, c) = o;
    }
  }
  return r;
}

}  // namespace f3

// Origin: huggingface/candle, candle-transformers/src/models/distilbert.rs,
// MultiHeadSelfAttention::forward and masked_fill, with candle-nn/src/ops.rs
// softmax (max_keepdim, broadcast_sub, exp, sum_keepdim, broadcast_div) and
// candle-core/src/tensor.rs (Tensor / f64 = affine(1 / v, 0)), commit
// 2a13b0f3ff62f7e67013597f2996f764c5735e21 (a fetched snapshot, the commit of
// candle_nomic_bert.cpp; first read in an index copy at 05f6b48, the same lines).
// Licence: MIT OR Apache-2.0 (MIT chosen).
// Not copied: a C++ port of the Rust arithmetic for one head.
// Arithmetic kept: q / sqrt(dim_per_head) FIRST, as the affine q * (float)(1 /
// sqrt(d)) + 0; scores = q . k (float32 matmul); scores.to_dtype(F32);
// masked_fill(scores, mask, f32::NEG_INFINITY) through where_cond with the mask
// TRUE = MASKED (the distilbert example builds u8 j > i: 1 = forbidden, as ours);
// softmax over the last dimension: the row max, x - max, exp, the sum in float32,
// each DIVIDED by the sum; context = weights . v in float32.
// Changed: candle tensors -> Eigen in/out; one head; no projections (q_lin, k_lin,
// v_lin, out_lin); the broadcast of the mask over heads dropped.
// Expected departures (before running): float32; a fully forbidden row is all
// -inf: max -inf, -inf - -inf = NaN: answered NaN, not refused. Expected names:
// text: low_precision (float32) + fully_forbidden_answered (NaN) (as
// ncnn_sdpa.cpp, ggml_soft_max.cpp); own [--precision float32 --fully-forbidden
// nan]: pass.
#include "attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
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
  const float mul = float(1.0 / std::sqrt(double(d)));  // affine(1. / rhs, 0.)
  const float add = 0.f;
  std::vector<float> q(d), s(nk);
  for (int i = 0; i < nq; i++) {
    for (int c = 0; c < d; c++) q[c] = float(Q(i, c)) * mul + add;
    for (int j = 0; j < nk; j++) {
      float acc = 0.f;
      for (int c = 0; c < d; c++) acc += q[c] * float(K(j, c));
      s[j] = (mask && (*mask)(i, j)) ? -std::numeric_limits<float>::infinity() : acc;
    }
    float mx = s[0];
    for (int j = 1; j < nk; j++) mx = std::max(mx, s[j]);
    float sum = 0.f;
    for (int j = 0; j < nk; j++) {
      s[j] = std::exp(s[j] - mx);
      sum += s[j];
    }
    for (int j = 0; j < nk; j++) {
      s[j] = s[j] / sum;
      r.A(i, j) = s[j];
    }
    for (int c = 0; c < dv; c++) {
      float acc = 0.f;
      for (int j = 0; j < nk; j++) acc += s[j] * float(V(j, c));
      r.O(i, c) = acc;
    }
  }
  return r;
}

}  // namespace f3

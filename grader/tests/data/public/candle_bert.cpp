// Origin: huggingface/candle, candle-transformers/src/models/bert.rs,
// BertSelfAttention::forward and get_extended_attention_mask, with
// candle-nn/src/ops.rs softmax (max_keepdim, broadcast_sub, exp, sum_keepdim,
// broadcast_div) and candle-core/src/tensor.rs (Tensor / f64 = affine(1 / v, 0)),
// commit 2a13b0f3ff62f7e67013597f2996f764c5735e21 (a fetched snapshot; the commit
// candle_nomic_bert.cpp was read at).
// Licence: MIT OR Apache-2.0 (MIT chosen).
// Not copied: a C++ port of the Rust arithmetic for one head.
// Arithmetic kept: attention_scores = q . k (float32 matmul), THEN / sqrt(head
// size) as the affine s * (float)(1 / sqrt(d)) + 0; the extended mask ADDED
// (broadcast_add): (ones_like(mask) - mask) * f32::MIN, i.e. 0 (-0) where the mask
// is 1 (attend) and f32::MIN = -3.4028235e38 (float lowest) where it is 0 ("torch.
// finfo(dtype).min"); softmax over the last dimension: the row max, s - max, exp,
// the sum in float32, each DIVIDED by the sum; context = probs . v in float32.
// Changed: candle tensors -> Eigen in/out; one head, no projections, no dropout
// (inference); the 0/1 attend mask built from the mask argument (true =
// forbidden -> 0 -> f32::MIN added).
// Expected departures (before running): float lowest ADDED (Lemma 2 asks -inf): a
// fully forbidden row is uniform (S + lowest rounds to lowest for |S| < 1e31),
// not refused; allowed logits at float lowest tie with the forbidden ones; a
// forbidden logit below about -1e31 overflows to -inf (lowest + S) and a row of
// them gives NaN; float32. Expected names: text: finite_fill (fill = float
// lowest) + low_precision (float32), exact_zeros possibly unnamed (as
// ort_onnx_attention_cpu.cpp, hf_bert_eager.py); own [--precision float32]:
// finite_fill (fill = float lowest).
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
  const float f32_min = std::numeric_limits<float>::lowest();
  std::vector<float> s(nk);
  for (int i = 0; i < nq; i++) {
    for (int j = 0; j < nk; j++) {
      float acc = 0.f;
      for (int c = 0; c < d; c++) acc += float(Q(i, c)) * float(K(j, c));
      const float attend = (mask && (*mask)(i, j)) ? 0.f : 1.f;
      const float extended = (1.f - attend) * f32_min;
      s[j] = (acc * mul + 0.f) + extended;
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

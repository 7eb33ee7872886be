// Origin: guillaume-be/rust-bert, src/bert/attention.rs, BertSelfAttention::forward_t,
// commit 1d04f78ed85b8cff2a6143bdf961673964e045d0, and src/bert/bert_model.rs,
// BertModel::forward_t (the extended attention mask), commit
// 04c4bdccb9008602dfdb42a90ad302de50a13192 (both as stored in the code index; the
// two files are held at different commits). The tensors are tch-rs, i.e. libtorch.
// Licence: Apache-2.0 (the header of both files).
// Not copied: a C++ port of the Rust/tch arithmetic for one head.
// Arithmetic kept: query_layer / sqrt(attention_head_size) FIRST (a float32 tensor
// divided by an f64 scalar: float32 division); scores = query . key (float32
// matmul) PLUS the extended mask; the mask (1 = attend, 0 = masked; a 3-D mask is
// taken as given) becomes (ones_like(mask) - mask) * -10000.0: 0 where attended,
// -10000 where masked, float32 (an integer tensor times a double scalar gives the
// default float type); weights = scores.softmax(-1, Float): the row max,
// exp(x - max), summed in float32, then times 1 / sum (libtorch's CPU kernel for
// the last dimension, not read here: unsure whether it multiplies by the
// reciprocal or divides); context = weights . value in float32.
// Changed: tch tensors -> Eigen in/out; one head, no projections, no dropout
// (train = false); the 0/1 attend mask built from the mask argument (true =
// forbidden -> 0 -> -10000 added).
// Expected departures (before running): an additive finite mask -10000 (Lemma 2
// asks -inf): forbidden keys get weight when the allowed logits lie near or below
// -1e4; a fully forbidden row is not refused: every logit is shifted by the same
// -10000, so it comes out as (about) the unmasked softmax of its logits, rounded at
// the scale of 1e4; q scaled first; float32. Expected names: text: finite_fill
// (fill = -1e4, added) + low_precision (float32) (as ort_attention_cpu.cpp and
// google_bert_attention_layer.py); own [--precision float32]: finite_fill (-1e4
// added), masked_equals_deleted possibly unnamed (as google_bert).
#include "attention.hpp"

#include <algorithm>
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
  const float divisor = float(std::sqrt(double(d)));  // (attention_head_size as f64).sqrt()
  std::vector<float> q(d), s(nk);
  for (int i = 0; i < nq; i++) {
    for (int c = 0; c < d; c++) q[c] = float(Q(i, c)) / divisor;
    for (int j = 0; j < nk; j++) {
      float acc = 0.f;
      for (int c = 0; c < d; c++) acc += q[c] * float(K(j, c));
      const float attend = (mask && (*mask)(i, j)) ? 0.f : 1.f;
      const float extended = (1.f - attend) * -10000.0f;
      s[j] = acc + extended;
    }
    float mx = s[0];
    for (int j = 1; j < nk; j++) mx = std::max(mx, s[j]);
    float sum = 0.f;
    for (int j = 0; j < nk; j++) {
      s[j] = std::exp(s[j] - mx);
      sum += s[j];
    }
    const float inv = 1.f / sum;
    for (int j = 0; j < nk; j++) {
      s[j] *= inv;
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

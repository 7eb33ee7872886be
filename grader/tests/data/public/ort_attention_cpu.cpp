// Origin: microsoft/onnxruntime, onnxruntime/contrib_ops/cpu/bert/attention_cpu_base.h,
// AttentionCPUBase::ApplyAttention / ComputeAttentionProbs, commit
// 008eeb96a1e2e8d5c23519a81a837f52b54d384b (as stored in the code index); the
// default mask_filter_value -10000.0f of the contrib MultiHeadAttention /
// Attention kernels; the float softmax MlasComputeSoftmax (MLAS) as read in
// index copies, not at that commit.
// Licence: MIT (Copyright (c) Microsoft Corporation).
// Not copied: a reimplementation of the arithmetic for one head.
// Arithmetic kept: the mask converted to an additive float mask (allowed 0.0f,
// forbidden mask_filter_value = -10000.0f) and copied into the scores buffer;
// Gemm with alpha = 1/sqrt(head_size) (scale_ = 0) and beta = 1:
// scores = alpha * (q . k) + mask, float32; softmax per row (MLAS): the row
// maximum, y = exp(x - max) summed in float, then y *= 1.0f / sum; O = probs V
// in float32.
// Changed: ORT tensors -> Eigen in/out; the 0/1 mask_index (1 = attend) built
// from the mask argument (true = forbidden); MLAS's vectorised exp (a polynomial
// whose argument is clamped from below near -103.97) replaced by expf; one head,
// no past state, no attention bias.
// Expected departures (before running): an additive finite mask -10000 (Lemma 2
// asks -inf): forbidden keys get weight when the allowed logits lie near or
// below -1e4; a fully forbidden row is NOT refused and not uniform: every logit
// is shifted by the same -10000, so the row comes out as the unmasked softmax of
// its scaled logits (rounded at the scale of 1e4); float32. With --precision
// float32: fully_forbidden_refused and exact_zeros fail, oracle_agreement likely
// too (rows with allowed logits near -1e4). Expected names: finite_fill (-1e4
// added) and fully_forbidden_answered (answer: the unmasked row - not among the
// NaN / zeros / uniform answers the text lists, so possibly not named).
#include "attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  const int S = int(Q.rows()), T = int(K.rows()), H = int(Q.cols()), Hv = int(V.cols());
  if (K.cols() != H) throw std::invalid_argument("q and k head sizes differ");
  if (V.rows() != T) throw std::invalid_argument("one value row per key");
  if (mask && (mask->rows() != S || mask->cols() != T)) throw std::invalid_argument("mask shape");
  const float mask_filter_value = -10000.0f;
  const float alpha = 1.0f / std::sqrt(static_cast<float>(H));
  AttentionResult r{Matrix::Zero(S, Hv), Matrix::Zero(S, T)};
  std::vector<float> probs(T);
  for (int s = 0; s < S; s++) {
    for (int t = 0; t < T; t++) {
      const float m = (mask && (*mask)(s, t)) ? mask_filter_value : 0.0f;  // PrepareMask
      float acc = 0.0f;
      for (int h = 0; h < H; h++) acc += float(Q(s, h)) * float(K(t, h));
      probs[t] = alpha * acc + m;  // Gemm, beta = 1 onto the mask
    }
    float maximum = -std::numeric_limits<float>::max();
    for (int t = 0; t < T; t++) maximum = std::max(maximum, probs[t]);
    const float negative_maximum = -maximum;
    float accumulation = 0.0f;
    for (int t = 0; t < T; t++) {
      probs[t] = expf(probs[t] + negative_maximum);
      accumulation += probs[t];
    }
    const float parameter = 1.0f / accumulation;
    for (int t = 0; t < T; t++) probs[t] *= parameter;
    for (int t = 0; t < T; t++) r.A(s, t) = probs[t];
    for (int h = 0; h < Hv; h++) {
      float o = 0.0f;
      for (int t = 0; t < T; t++) o += probs[t] * float(V(t, h));
      r.O(s, h) = o;
    }
  }
  return r;
}

}  // namespace f3

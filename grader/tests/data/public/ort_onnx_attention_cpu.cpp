// Origin: microsoft/onnxruntime, onnxruntime/core/providers/cpu/llm/attention.cc, the
// CPU kernel of the ONNX Attention operator (opsets 23/24; not the contrib
// attention_cpu_base.h of ort_attention_cpu.cpp): make_copy<float, bool> and
// AttentionBase<T>::ComputeAttentionProbs, commit
// a8d19b99a35280dbf1bff31101132a2312d6e46a; attention_softmax.h
// (ComputeAttentionSoftmaxInplace -> MlasComputeSoftmax) at commit
// 83cbb347b9c3e3101e1a3a98fc5a847a9bd42706.
// Licence: MIT (file header: "Licensed under the MIT License", Microsoft Corporation).
// Not copied: a reimplementation of the arithmetic for one head.
// Arithmetic kept: the boolean attn_mask (ONNX: true = may attend) converted by
// make_copy<float, bool> to 0.0f where true and mask_filter_value<float>() where false,
// which the source's comment states is std::numeric_limits<float>::lowest() (unsure:
// attention.h, where it is defined, was not read); the converted mask copied into the
// scores buffer and the Gemm run with beta = 1 and alpha = scale (the default scale
// attribute NaN -> 1/sqrt(head_size); unsure: the computation in attention_helper was
// not read, 1/sqrt(head_size) is the ONNX default): scores = alpha * (q . k) + mask in
// float32 (so forbidden = alpha * qk + lowest, ADDED; for a negative alpha * qk below
// about -2e31 this overflows to -inf); no softcap (default 0), no causal (is_causal
// default 0); MlasComputeSoftmax per row: max, exp(x - max) summed in float, each
// times 1 / sum (as in ort_attention_cpu.cpp); O = probs V in float32.
// Changed: ORT tensors -> Eigen in/out; one head, no past key/value, no
// nonpad_kv_seqlen; attnlab's mask (true = forbidden) becomes the ONNX boolean mask
// (true = attend) as its negation; MLAS's vectorised exp (clamped from below) replaced
// by expf (as ort_attention_cpu.cpp); the Gemm accumulation kept in order (MLAS's
// blocking and FMA use not reproduced).
// Expected departures (before running): float lowest ADDED (Lemma 2 asks -inf): a
// fully forbidden row is uniform where its logits are small against 1e38 (lowest + x
// rounds to lowest), NaN where every forbidden logit is negative enough for lowest + x
// to overflow to -inf (max -inf, exp(NaN)); forbidden keys get weight where the allowed
// logits reach float lowest (exact_zeros); float32. Expected names: text: finite_fill
// (fill = float lowest, added) + low_precision (float32) on most failures, exact_zeros
// possibly unnamed (as openvino_sdpa_reference.cpp, the same added lowest); own
// [--precision float32]: finite_fill (float lowest).
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
  AttentionResult r{Matrix::Zero(S, Hv), Matrix::Zero(S, T)};
  const float alpha = 1.0f / std::sqrt(float(H));
  const float filter = std::numeric_limits<float>::lowest();
  std::vector<float> out(size_t(S) * T, 0.0f);
  for (int s = 0; s < S; s++)
    for (int t = 0; t < T; t++) {
      // make_copy<float, bool>: attend (true) -> 0.0f, else mask_filter_value.
      const bool attend = !(mask && (*mask)(s, t));
      float c = mask ? (attend ? 0.0f : filter) : 0.0f;  // beta = 1 with the mask, 0 without
      float acc = 0.0f;
      for (int h = 0; h < H; h++) acc += float(Q(s, h)) * float(K(t, h));
      out[size_t(s) * T + t] = alpha * acc + c;
    }
  for (int s = 0; s < S; s++) {
    float* row = &out[size_t(s) * T];
    float mx = row[0];
    for (int t = 1; t < T; t++) mx = std::max(mx, row[t]);
    float sum = 0.0f;
    for (int t = 0; t < T; t++) {
      row[t] = expf(row[t] - mx);
      sum += row[t];
    }
    const float inv = 1.0f / sum;
    for (int t = 0; t < T; t++) row[t] *= inv;
    for (int t = 0; t < T; t++) r.A(s, t) = row[t];
    for (int c = 0; c < Hv; c++) {
      float o = 0.0f;
      for (int t = 0; t < T; t++) o += row[t] * float(V(t, c));
      r.O(s, c) = o;
    }
  }
  return r;
}

}  // namespace f3

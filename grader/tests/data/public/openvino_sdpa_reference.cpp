// Origin: openvinotoolkit/openvino,
// src/core/reference/include/openvino/reference/scaled_dot_product_attention.hpp
// (ov::reference::scaled_dot_product_attention and
// helpers::create_attention_mask_from_ov_boolean, commit
// acc34ef2fd85a833a208f8294ec68a262bd065cc) and
// src/core/reference/include/openvino/reference/softmax.hpp (ov::reference::softmax,
// commit 738c5b8ee7bd5fb6cb807efed1c35a57c36cd37f); the code index holds each file
// at one version (read there).
// Licence: Apache-2.0 (Copyright (C) 2018-2025 Intel Corporation).
// Not copied: a reimplementation of the arithmetic for one head, T = float (an
// f32 model).
// Arithmetic kept: qk = Q K^T in float (matmul with transpose_b), then MULTIPLIED
// by scale_val = 1.0f / float(std::sqrt(head size)) (no scale input); a boolean
// mask (OpenVINO's: 0 = forbidden, so true = may attend) turned into a bias of
// std::numeric_limits<float>::lowest() where forbidden and 0 elsewhere, ADDED to
// qk; softmax: reduce_max over the row, std::exp(x - max), reduce_sum, each
// divided by the sum; output = softmax V in float.
// Changed: ov tensors and shapes -> Eigen in/out, one head, no causal flag; the mask
// argument (true = forbidden) turned into OpenVINO's bias; the sums in plain order.
// Expected departures (before running): float32; a finite additive fill at float
// lowest (-3.4028235e38 added): a fully forbidden row is answered (uniform or by the
// rounded sums), not refused; forbidden keys get weight where the allowed logits lie
// at float lowest; an allowed logit plus lowest may overflow to -inf. Expected
// names: text run: finite_fill (fill = float lowest, added) + low_precision
// (float32); own [--precision float32]: finite_fill (fill = float lowest).
#include "attention.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  const int L = int(Q.rows()), S = int(K.rows()), E = int(Q.cols()), Ev = int(V.cols());
  if (K.cols() != E) throw std::invalid_argument("query and key head sizes differ");
  if (V.rows() != S) throw std::invalid_argument("one value row per key");
  if (mask && (mask->rows() != L || mask->cols() != S)) throw std::invalid_argument("mask shape");
  AttentionResult r{Matrix::Zero(L, Ev), Matrix::Zero(L, S)};
  const float scale_val = 1.0f / static_cast<float>(std::sqrt(E));
  std::vector<float> qk(S);
  for (int i = 0; i < L; i++) {
    for (int j = 0; j < S; j++) {
      float acc = 0.f;
      for (int k = 0; k < E; k++) acc += float(Q(i, k)) * float(K(j, k));
      qk[j] = acc * scale_val;
    }
    if (mask)
      for (int j = 0; j < S; j++)
        qk[j] = qk[j] + ((*mask)(i, j) ? std::numeric_limits<float>::lowest() : 0.f);
    float mx = std::numeric_limits<float>::lowest();
    for (int j = 0; j < S; j++) mx = j == 0 ? qk[j] : std::max(mx, qk[j]);
    float sum = 0.f;
    for (int j = 0; j < S; j++) {
      qk[j] = std::exp(qk[j] - mx);
      sum += qk[j];
    }
    for (int j = 0; j < S; j++) qk[j] /= sum;
    for (int j = 0; j < S; j++) r.A(i, j) = qk[j];
    for (int c = 0; c < Ev; c++) {
      float acc = 0.f;
      for (int j = 0; j < S; j++) acc += qk[j] * float(V(j, c));
      r.O(i, c) = acc;
    }
  }
  return r;
}

}  // namespace f3

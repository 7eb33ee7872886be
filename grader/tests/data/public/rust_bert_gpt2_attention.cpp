// Origin: guillaume-be/rust-bert, src/gpt2/attention.rs, Attention::attention,
// commit 35436f589c57d5580cd80226302b4c16ef4f4972 (as stored in the code index);
// scale = true as the GPT-2 model builds its blocks (src/gpt2/gpt2_model.rs,
// Block::new(..., config, true), read in an index copy whose commit was not
// shown; unsure that Block passes the flag on unchanged: its file not read). The
// tensors are tch-rs, i.e. libtorch.
// Licence: Apache-2.0 (the header of the file).
// Not copied: a C++ port of the Rust/tch arithmetic for one head.
// Arithmetic kept: w = query . key (float32 matmul); w = w / sqrt(d_v) (the LAST
// size of value, not of query/key: a float32 tensor divided by an f64 scalar);
// b = the causal buffer (1.0 = attend, 0.0 = masked, float32); w = w * b + 1e4 *
// (b - 1): forbidden logits become 0 + -10000 = -10000 IN PLACE of the logit,
// allowed ones w + 0; no attention_mask added (None); softmax(-1, Float): the row
// max, exp(x - max), summed in float32, times 1 / sum (libtorch's CPU kernel, not
// read: unsure whether it multiplies by the reciprocal or divides); output = w .
// value in float32.
// Changed: tch tensors -> Eigen in/out; one head, no c_attn/c_proj projections,
// no past state, no dropout (train = false); the mask argument (true = forbidden)
// replaces the lower-triangular buffer (b = 1 - mask), so any mask is applied the
// way the causal one is.
// Expected departures (before running): three. Scale 1/sqrt(d_v) instead of
// 1/sqrt(d_k) (as hf_gpt2_eager.py); finite fill -10000 in place (Lemma 2 asks
// -inf): a fully forbidden row is uniform, not refused, and forbidden keys get
// weight where the allowed logits lie near or below -1e4; float32. Expected
// names: text: finite_fill (fill = -1e4) + wrong_scale (1/sqrt(d_v)) +
// low_precision (float32); own [--precision float32]: finite_fill (-1e4) +
// wrong_scale (1/sqrt(d_v)) where d_k != d_v shows, finite_fill alone elsewhere.
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
  const float divisor = float(std::sqrt(double(dv)));  // value.size().last() as f64
  std::vector<float> w(nk);
  for (int i = 0; i < nq; i++) {
    for (int j = 0; j < nk; j++) {
      float acc = 0.f;
      for (int c = 0; c < d; c++) acc += float(Q(i, c)) * float(K(j, c));
      acc = acc / divisor;
      const float b = (mask && (*mask)(i, j)) ? 0.f : 1.f;
      w[j] = acc * b + 1e4f * (b - 1.f);
    }
    float mx = w[0];
    for (int j = 1; j < nk; j++) mx = std::max(mx, w[j]);
    float sum = 0.f;
    for (int j = 0; j < nk; j++) {
      w[j] = std::exp(w[j] - mx);
      sum += w[j];
    }
    const float inv = 1.f / sum;
    for (int j = 0; j < nk; j++) {
      w[j] *= inv;
      r.A(i, j) = w[j];
    }
    for (int c = 0; c < dv; c++) {
      float acc = 0.f;
      for (int j = 0; j < nk; j++) acc += w[j] * float(V(j, c));
      r.O(i, c) = acc;
    }
  }
  return r;
}

}  // namespace f3

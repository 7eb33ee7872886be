// Origin: marian-nmt/marian-dev, src/models/transformer.h, Transformer::Attention
// and transposedLogMask, with the CPU Softmax of src/tensors/cpu/tensor_operators.cpp
// (Softmax<ElementType>), commit c9f287db75b4ed27979717ff0cf543000e2e5b2e (read in a
// snapshot of the repository at that commit).
// Licence: MIT (LICENSE.md, Copyright (c) 2016 Marcin Junczys-Dowmunt, the
// University of Edinburgh, Adam Mickiewicz University).
// Not copied: a reimplementation of the arithmetic for one head.
// Arithmetic kept: float32; scale = 1.0f / std::sqrt((float)dk) passed to
// bdot_legacy, i.e. the GEMM's alpha: z = scale * (q . k), the product first;
// the mask: transposedLogMask turns Marian's multiplicative 1/0 mask (1 = may
// attend) into (1 - mask) * maskFactor, maskFactor = max(lowest(float) / 2,
// -99999999.f) = -99999999.f, which is -1e8 in float32 (-100000000); z = z + mask
// (ADDED); softmax per row: max started at the row's first entry, ex = exp(x -
// max) summed in float, each divided by the sum; output = weights * v in float32.
// Changed: Marian expression graphs -> Eigen in/out; one head, no projections,
// no dropout (inference), no attention-weight saving; the mask argument (true =
// forbidden) turned into Marian's 1/0 keep mask; the float32x4 / float32x8 paths
// (taken when T_v is a multiple of 4 or 8: lane-wise partial sums and a vectorised
// exp) replaced by the scalar path with expf; products summed in plain order.
// Expected departures (before running): an additive finite mask -1e8 instead of
// -inf: forbidden keys get weight where the allowed logits lie near or below
// -1e8 (exact_zeros); a fully forbidden row: every logit is shifted by -1e8 and
// rounded to the float32 spacing there (8): logits below 4 in size all become
// -1e8 and the row comes out uniform (mean of V); larger ones keep steps of 8, so
// the row is the softmax of the rounded logits; answered, not refused; float32.
// Expected names: text run: finite_fill + low_precision (float32), the form
// uncertain: -1e8 is a candidate in place, not added (the added candidates are
// -1e4 and -1e9), so the fully forbidden rows may be left unnamed or the fill named
// as -1e8 (in place) where the rows do not tell the forms apart; own [--precision
// float32]: finite_fill on exact_zeros and fully_forbidden_refused (value and form
// as in the text run), oracle_agreement and masked_equals_deleted possibly failing
// as for ORT's -1e4.
#include "attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  const int tgt = int(Q.rows()), src = int(K.rows()), dk = int(K.cols()), dv = int(V.cols());
  if (Q.cols() != dk) throw std::invalid_argument("query and key widths differ");
  if (V.rows() != src) throw std::invalid_argument("one value row per key");
  if (mask && (mask->rows() != tgt || mask->cols() != src)) throw std::invalid_argument("mask shape");
  const float scale = 1.0f / std::sqrt((float)dk);
  const float maskFactor = std::max(std::numeric_limits<float>::lowest() / 2.f, -99999999.f);
  AttentionResult r{Matrix::Zero(tgt, dv), Matrix::Zero(tgt, src)};
  std::vector<float> z(src);
  for (int i = 0; i < tgt; i++) {
    for (int j = 0; j < src; j++) {
      float acc = 0.f;
      for (int c = 0; c < dk; c++) acc += float(Q(i, c)) * float(K(j, c));
      z[j] = scale * acc;  // bdot_legacy(q, k, false, true, scale)
    }
    if (mask)
      for (int j = 0; j < src; j++) {
        const float keep = (*mask)(i, j) ? 0.f : 1.f;
        z[j] = z[j] + (1.f - keep) * maskFactor;  // z = z + transposedLogMask(mask)
      }
    float max = z[0];
    for (int j = 1; j < src; j++) max = std::max(max, z[j]);
    float sum = 0.f;
    for (int j = 0; j < src; j++) {
      const float ex = expf(z[j] - max);
      sum = sum + ex;
      z[j] = ex;
    }
    for (int j = 0; j < src; j++) z[j] = z[j] / sum;
    for (int j = 0; j < src; j++) r.A(i, j) = z[j];
    for (int c = 0; c < dv; c++) {
      float acc = 0.f;
      for (int j = 0; j < src; j++) acc += z[j] * float(V(j, c));
      r.O(i, c) = acc;
    }
  }
  return r;
}

}  // namespace f3

// Origin: mlpack/mlpack, src/mlpack/methods/ann/layer/multihead_attention_impl.hpp,
// MultiheadAttentionType::Forward, commit dbea84f5a0a9e8727631495b2279c355b0b5003b
// (read through the code index at that commit), with the Softmax layer it calls,
// src/mlpack/methods/ann/layer/softmax_impl.hpp, SoftmaxType::Forward, read at
// commit 0832bb75c28a039faebc931b950662d09b5ca9bb (the code index holds that file
// at that version only; unsure whether the softmax at dbea84f is the same text,
// its arithmetic - max and sum over dimension 0 - is the one read).
// Licence: BSD-3-Clause (mlpack's licence, named in both files' headers).
// Not copied: a reimplementation of the arithmetic for one head and one batch.
// Arithmetic kept: double (MultiheadAttention is MultiheadAttentionType<arma::mat>);
// qProj /= std::sqrt(headDim) BEFORE the product; scores = qProj * kProj^T, a
// tgtSeqLen x srcSeqLen matrix (rows = queries, columns = keys); the attention
// mask ADDED (mlpack's attnMask holds 0 or -inf); then the Softmax layer on that
// matrix: exp(input.each_row() - max(input, 0)) / sum(..., 0): the maximum and the
// sum are taken over dimension 0, i.e. down each COLUMN (over the queries, for one
// key), Armadillo's column-major convention of one data point per column; then
// attnOut = scores * vProj (each output row a weighted sum of value rows, with
// weights that do not sum to 1 over the keys).
// Changed: arma cubes -> Eigen in/out; one head, one batch, no projections or
// biases, no key padding mask; the mask argument (true = forbidden) turned into
// mlpack's additive 0 / -inf attnMask; headDim = d_k; V may be wider or narrower
// than d_k (mlpack's values have the head width; the product is the same); the
// products summed in plain order (Armadillo calls BLAS).
// Expected departures (before running): the softmax normalises each column (over
// the queries) instead of each row (over the keys): rows of A do not sum to 1,
// columns do; with one query every allowed weight is exp(0) = 1; a key forbidden
// for every query gives a NaN column (max -inf, exp(-inf - (-inf))); a fully
// forbidden query row is answered (zeros, or NaN in all-forbidden columns), not
// refused. Expected name: wrong_axis on every failure (double, so no precision
// departure; the own run is the text run: no option expresses the axis).
// Fixed upstream later (the forward pass now normalises over the keys with a
// masked softmax); the commit here predates that.
#include "attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  const int tgtSeqLen = int(Q.rows()), srcSeqLen = int(K.rows());
  const int headDim = int(Q.cols()), vDim = int(V.cols());
  if (K.cols() != headDim) throw std::invalid_argument("query and key widths differ");
  if (V.rows() != srcSeqLen) throw std::invalid_argument("one value row per key");
  if (mask && (mask->rows() != tgtSeqLen || mask->cols() != srcSeqLen))
    throw std::invalid_argument("The size of the 'attn_mask' is not correct.");
  // qProj /= std::sqrt(headDim)
  Matrix qProj = Q;
  const double root = std::sqrt(static_cast<double>(static_cast<size_t>(headDim)));
  for (int i = 0; i < tgtSeqLen; i++)
    for (int c = 0; c < headDim; c++) qProj(i, c) = qProj(i, c) / root;
  // scores = qProj * kProj^T, then += attnMask (0 or -inf)
  Matrix scores(tgtSeqLen, srcSeqLen);
  for (int i = 0; i < tgtSeqLen; i++)
    for (int j = 0; j < srcSeqLen; j++) {
      double s = 0.0;
      for (int c = 0; c < headDim; c++) s += qProj(i, c) * K(j, c);
      scores(i, j) = s;
    }
  if (mask)
    for (int i = 0; i < tgtSeqLen; i++)
      for (int j = 0; j < srcSeqLen; j++)
        scores(i, j) += (*mask)(i, j) ? -std::numeric_limits<double>::infinity() : 0.0;
  // Softmax layer: max(input, 0) and sum(..., 0) are per column.
  Matrix A(tgtSeqLen, srcSeqLen);
  for (int j = 0; j < srcSeqLen; j++) {
    double colMax = scores(0, j);
    for (int i = 1; i < tgtSeqLen; i++) colMax = std::max(colMax, scores(i, j));
    double colSum = 0.0;
    for (int i = 0; i < tgtSeqLen; i++) {
      A(i, j) = std::exp(scores(i, j) - colMax);
      colSum += A(i, j);
    }
    for (int i = 0; i < tgtSeqLen; i++) A(i, j) = A(i, j) / colSum;
  }
  // attnOut = scores * vProj
  Matrix O(tgtSeqLen, vDim);
  for (int i = 0; i < tgtSeqLen; i++)
    for (int c = 0; c < vDim; c++) {
      double s = 0.0;
      for (int j = 0; j < srcSeqLen; j++) s += A(i, j) * V(j, c);
      O(i, c) = s;
    }
  return AttentionResult{O, A};
}

}  // namespace f3

// Multi-head attention in a small Eigen-based inference engine: each head
// runs through a single-head kernel and its output is pushed onto a list of
// pending blocks; the blocks are then drained into the concatenation buffer
// with back()/pop_back(), left to right. Draining a vector from the back
// writes the last head first, so head i lands in the columns (and meets the
// rows of W_O) meant for head h-1-i.
// Expected: mh_heads_reversed, or no key.
#include "multi_head_attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace m1 {
namespace {

using RowVec = Eigen::Matrix<double, 1, Eigen::Dynamic>;

Matrix single_head(const Matrix& q, const Matrix& k, const Matrix& v, const std::optional<Mask>& mask) {
  Matrix scores = q * k.transpose() / std::sqrt(static_cast<double>(q.cols()));
  for (Eigen::Index t = 0; t < scores.rows(); ++t) {
    double row_max = -std::numeric_limits<double>::infinity();
    for (Eigen::Index s = 0; s < scores.cols(); ++s) {
      if (mask && (*mask)(t, s)) scores(t, s) = -std::numeric_limits<double>::infinity();
      row_max = std::max(row_max, scores(t, s));
    }
    if (row_max == -std::numeric_limits<double>::infinity())
      throw std::invalid_argument("token " + std::to_string(t) + " has no visible key");
    RowVec p = (scores.row(t).array() - row_max).exp().matrix();
    scores.row(t) = p / p.sum();
  }
  return scores * v;
}

}  // namespace

Matrix multi_head_attention(const Matrix& X, const std::vector<HeadWeights>& heads,
                            const Matrix& W_O, const std::optional<Mask>& mask) {
  if (heads.empty()) throw std::invalid_argument("need at least one head");
  const Eigen::Index T = X.rows(), d_v = heads[0].W_V.cols();
  if (mask && (mask->rows() != T || mask->cols() != T))
    throw std::invalid_argument("mask must be T x T");
  if (W_O.rows() != d_v * static_cast<Eigen::Index>(heads.size()))
    throw std::invalid_argument("W_O rows must be n_heads * d_v");

  std::vector<Matrix> pending;
  pending.reserve(heads.size());
  for (const HeadWeights& w : heads) {
    if (w.W_Q.rows() != X.cols() || w.W_K.rows() != X.cols() || w.W_V.rows() != X.cols() ||
        w.W_Q.cols() != w.W_K.cols() || w.W_V.cols() != d_v)
      throw std::invalid_argument("head weights do not fit");
    pending.push_back(single_head(X * w.W_Q, X * w.W_K, X * w.W_V, mask));
  }

  Matrix concat(T, W_O.rows());
  Eigen::Index col = 0;
  while (!pending.empty()) {
    concat.middleCols(col, d_v) = pending.back();
    pending.pop_back();
    col += d_v;
  }
  return concat * W_O;
}

}  // namespace m1

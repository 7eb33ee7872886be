// Model solution of M1 (exercises/M1/README.md) in C++: multi-head
// self-attention, section 32.2.5.
//
// Grade it with: attnlab grade solutions/M1/multi_head_attention.cpp
//
// Each head is F3's masked attention on its own projections: the mask sets
// forbidden logits to -inf before the softmax, the row maximum is taken over
// the allowed keys, std::exp per entry gives exact zeros; the logits are
// scaled by the head's 1/sqrt(d_k). Head i fills columns i d_v .. (i+1) d_v - 1
// of the concatenation, which is multiplied by W_O.
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "multi_head_attention.hpp"

namespace m1 {

namespace {

/// One head's outputs (T x d_v) for its projections Q, K, V.
Matrix head_output(const Matrix& Q, const Matrix& K, const Matrix& V,
                   const std::optional<Mask>& mask) {
  const Eigen::Index T = Q.rows();
  const double scale = 1.0 / std::sqrt(double(Q.cols()));
  const Matrix logits = (Q * K.transpose()) * scale;
  Matrix weights(T, K.rows());
  for (Eigen::Index i = 0; i < T; ++i) {
    double row_max = -std::numeric_limits<double>::infinity();
    for (Eigen::Index j = 0; j < K.rows(); ++j) {
      if (mask && (*mask)(i, j)) continue;
      // The rule for logits (docs/ARCHITECTURE.md): an allowed logit that
      // overflows to +inf (or is NaN) is refused; one that overflows to -inf
      // gets weight 0, unless every allowed logit of the row does.
      if (std::isnan(logits(i, j)) || logits(i, j) == std::numeric_limits<double>::infinity())
        throw std::domain_error("logit S(" + std::to_string(i) + ", " + std::to_string(j) +
                                ") overflows to +inf");
      row_max = std::max(row_max, logits(i, j));
    }
    if (row_max == -std::numeric_limits<double>::infinity())  // rows wholly forbidden are refused above
      throw std::domain_error("every allowed logit of query row " + std::to_string(i) +
                              " overflows to -inf");
    double sum = 0;
    for (Eigen::Index j = 0; j < K.rows(); ++j) {
      weights(i, j) = (mask && (*mask)(i, j)) ? 0.0 : std::exp(logits(i, j) - row_max);
      sum += weights(i, j);
    }
    weights.row(i) /= sum;
  }
  return weights * V;
}

}  // namespace

Matrix multi_head_attention(const Matrix& X, const std::vector<HeadWeights>& heads,
                            const Matrix& W_O, const std::optional<Mask>& mask) {
  const Eigen::Index T = X.rows(), d_model = X.cols();
  if (heads.empty()) throw std::invalid_argument("multi-head attention needs h >= 1 heads");
  if (mask && (mask->rows() != T || mask->cols() != T))
    throw std::invalid_argument("the mask must be T x T");
  for (Eigen::Index i = 0; i < T; ++i)
    if (mask && mask->row(i).all())
      throw std::domain_error("query row " + std::to_string(i) + " has every key forbidden");
  const Eigen::Index d_v = heads.front().W_V.cols();
  Matrix concatenated(T, Eigen::Index(heads.size()) * d_v);
  for (std::size_t i = 0; i < heads.size(); ++i) {
    const HeadWeights& w = heads[i];
    if (w.W_Q.rows() != d_model || w.W_K.rows() != d_model || w.W_V.rows() != d_model ||
        w.W_Q.cols() != w.W_K.cols() || w.W_V.cols() != d_v)
      throw std::invalid_argument("head " + std::to_string(i) + ": projections do not fit");
    concatenated.middleCols(Eigen::Index(i) * d_v, d_v) =
        head_output(X * w.W_Q, X * w.W_K, X * w.W_V, mask);
  }
  if (W_O.rows() != concatenated.cols())
    throw std::invalid_argument("W_O must have h d_v rows");
  return concatenated * W_O;
}

}  // namespace m1

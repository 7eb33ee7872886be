// Model solution of exercise F4 (section 32.2.8) in C++: the corrected
// masking, implementing exercises/F4/masked_attention.hpp (F3's interface in
// namespace f4).
// Grade it with:
//   attnlab grade solutions/F4/masked_attention.cpp --answers solutions/F4/answers.json
//
// The bug in exercises/F4/post_softmax_mask.cpp zeroes forbidden weights
// after the softmax, whose denominator already counted them. Here forbidden
// keys are left out of the row maximum and of the denominator (the same as a
// logit of -inf, Lemma 2), so their weights are exactly 0 and every row sums to 1.

#include "masked_attention.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace f4 {
namespace {

std::string shape(const Matrix& M) {
  return std::to_string(M.rows()) + " x " + std::to_string(M.cols());
}

}  // namespace

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  const Eigen::Index T_q = Q.rows(), d_k = Q.cols(), T_v = K.rows();
  if (K.cols() != d_k || V.rows() != T_v) {
    throw std::invalid_argument("shapes do not fit: Q is " + shape(Q) + " (T_q x d_k), K is " +
                                shape(K) + " (T_v x d_k), V is " + shape(V) + " (T_v x d_v)");
  }
  if (d_k == 0) throw std::invalid_argument("d_k = 0: the scale 1/sqrt(d_k) is undefined");
  if (mask && (mask->rows() != T_q || mask->cols() != T_v)) {
    throw std::invalid_argument("the mask is " + std::to_string(mask->rows()) + " x " +
                                std::to_string(mask->cols()) + ", expected T_q x T_v");
  }
  if (!Q.allFinite() || !K.allFinite() || !V.allFinite()) {
    throw std::domain_error("Q, K or V holds NaN or inf");
  }
  auto forbidden = [&](Eigen::Index i, Eigen::Index j) { return mask && (*mask)(i, j); };

  const Matrix S = (Q * K.transpose()) / std::sqrt(double(d_k));  // Lemma 1
  Matrix A = Matrix::Zero(T_q, T_v);
  for (Eigen::Index i = 0; i < T_q; ++i) {
    double row_max = -std::numeric_limits<double>::infinity();
    bool any_allowed = false;
    for (Eigen::Index j = 0; j < T_v; ++j) {
      if (forbidden(i, j)) continue;
      any_allowed = true;
      // The rule for logits (docs/ARCHITECTURE.md): an allowed logit that
      // overflows to +inf (or is NaN) is refused; one that overflows to -inf
      // gets weight 0, unless every allowed logit of the row does.
      if (std::isnan(S(i, j)) || S(i, j) == std::numeric_limits<double>::infinity()) {
        throw std::domain_error("logit S(" + std::to_string(i) + ", " + std::to_string(j) +
                                ") overflows to +inf");
      }
      row_max = std::max(row_max, S(i, j));
    }
    if (!any_allowed) {
      throw std::domain_error("query row " + std::to_string(i) + " has every key forbidden");
    }
    if (row_max == -std::numeric_limits<double>::infinity()) {
      throw std::domain_error("every allowed logit of query row " + std::to_string(i) +
                              " overflows to -inf");
    }
    double sum = 0.0;
    for (Eigen::Index j = 0; j < T_v; ++j) {
      if (forbidden(i, j)) continue;  // THE FIX: never enters the denominator
      A(i, j) = std::exp(S(i, j) - row_max);
      sum += A(i, j);
    }
    A.row(i) /= sum;
  }
  return {A * V, A};
}

}  // namespace f4

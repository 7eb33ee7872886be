// Model solution of exercise F3 (section 32.2.8) in C++: masked scaled
// dot-product attention, implementing exercises/F3/attention.hpp.
// Grade it with: attnlab grade solutions/F3/attention.cpp
//
// The mask is applied to the logits before the softmax (Lemma 2), and the
// softmax subtracts the row maximum taken over the allowed keys only, so a
// forbidden key gets exp(-inf) = exactly 0 and nothing overflows.

#include "attention.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace f3 {
namespace {

std::string dims(const Matrix& M) {
  return std::to_string(M.rows()) + " x " + std::to_string(M.cols());
}

void require_finite(const Matrix& M, const char* name) {
  for (Eigen::Index i = 0; i < M.rows(); ++i) {
    for (Eigen::Index j = 0; j < M.cols(); ++j) {
      if (!std::isfinite(M(i, j))) {
        throw std::domain_error(std::string(name) + "(" + std::to_string(i) + ", " +
                                std::to_string(j) + ") is not finite");
      }
    }
  }
}

}  // namespace

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  const Eigen::Index T_q = Q.rows(), d_k = Q.cols(), T_v = K.rows();
  if (K.cols() != d_k) {
    throw std::invalid_argument("d_k mismatch: Q is " + dims(Q) + " (T_q x d_k) but K is " +
                                dims(K) + "; K needs " + std::to_string(d_k) + " columns");
  }
  if (V.rows() != T_v) {
    throw std::invalid_argument("K is " + dims(K) + " but V is " + dims(V) +
                                ": K and V need the same number of rows T_v");
  }
  if (d_k == 0) throw std::invalid_argument("d_k = 0: the scale 1/sqrt(d_k) is undefined");
  if (mask && (mask->rows() != T_q || mask->cols() != T_v)) {
    throw std::invalid_argument("the mask is " + std::to_string(mask->rows()) + " x " +
                                std::to_string(mask->cols()) + ", expected T_q x T_v = " +
                                std::to_string(T_q) + " x " + std::to_string(T_v));
  }
  require_finite(Q, "Q");
  require_finite(K, "K");
  require_finite(V, "V");

  constexpr double minus_inf = -std::numeric_limits<double>::infinity();
  // Lemma 1: S = Q K^T / sqrt(d_k), T_q x T_v.
  Matrix logits = (Q * K.transpose()) / std::sqrt(static_cast<double>(d_k));

  Matrix A(T_q, T_v);
  for (Eigen::Index i = 0; i < T_q; ++i) {
    double row_max = minus_inf;
    bool overflowed = false;
    for (Eigen::Index j = 0; j < T_v; ++j) {
      if (mask && (*mask)(i, j)) {
        logits(i, j) = minus_inf;  // Lemma 2: forbidden before the softmax
        continue;
      }
      // The rule for logits (docs/ARCHITECTURE.md): +inf (or NaN) from an
      // overflow is refused; -inf from an overflow gets weight 0.
      if (std::isnan(logits(i, j)) || logits(i, j) == -minus_inf) {
        throw std::domain_error("logit S(" + std::to_string(i) + ", " + std::to_string(j) +
                                ") overflows to +inf");
      }
      if (logits(i, j) == minus_inf) overflowed = true;
      row_max = std::max(row_max, logits(i, j));
    }
    if (row_max == minus_inf && overflowed) {
      throw std::domain_error("every allowed logit of query row " + std::to_string(i) +
                              " overflows to -inf");
    }
    if (row_max == minus_inf) {
      throw std::domain_error("query row " + std::to_string(i) +
                              " has every key forbidden: its softmax is undefined");
    }
    double sum = 0.0;
    for (Eigen::Index j = 0; j < T_v; ++j) {
      A(i, j) = std::exp(logits(i, j) - row_max);  // exactly 0 where forbidden
      sum += A(i, j);
    }
    A.row(i) /= sum;
  }
  return {A * V, A};
}

}  // namespace f3

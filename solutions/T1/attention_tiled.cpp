// Model solution of T1 (exercises/T1/README.md) in C++: attention computed
// tile by tile with an online softmax (FlashAttention, Algorithm 1), and the
// naive form it must agree with.
//
// Grade it with: attnlab grade solutions/T1/attention_tiled.cpp
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "attention_tiled.hpp"

namespace t1 {

namespace {

constexpr double kMinusInf = -std::numeric_limits<double>::infinity();

bool forbidden(const std::optional<Mask>& mask, Eigen::Index i, Eigen::Index j) {
  return mask && (*mask)(i, j);
}

/// The rule for logits (docs/ARCHITECTURE.md): an allowed logit that
/// overflows to +inf (or is NaN) is refused; one that overflows to -inf gets
/// weight 0 (exp(-inf) = 0), unless every allowed logit of the row does.
void refuse_plus_inf(double s, Eigen::Index i, Eigen::Index j) {
  if (std::isnan(s) || s == -kMinusInf)
    throw std::domain_error("logit S(" + std::to_string(i) + ", " + std::to_string(j) +
                            ") overflows to +inf");
}

/// Called once a row is done: `m` is its running maximum over the allowed keys.
void refuse_empty_row(double m, bool any_allowed, Eigen::Index i) {
  if (!any_allowed)
    throw std::domain_error("query row " + std::to_string(i) + " has every key forbidden");
  if (m == kMinusInf)
    throw std::domain_error("every allowed logit of query row " + std::to_string(i) +
                            " overflows to -inf");
}

void check_shapes(const Matrix& Q, const Matrix& K, const Matrix& V,
                  const std::optional<Mask>& mask) {
  if (Q.cols() != K.cols() || Q.cols() == 0)
    throw std::invalid_argument("Q and K need the same d_k >= 1");
  if (K.rows() != V.rows()) throw std::invalid_argument("K and V need the same T_v rows");
  if (mask && (mask->rows() != Q.rows() || mask->cols() != K.rows()))
    throw std::invalid_argument("the mask must be T_q x T_v");
}

}  // namespace

TiledResult attention_tiled(const Matrix& Q, const Matrix& K, const Matrix& V,
                            const std::optional<Mask>& mask, Eigen::Index tile_q,
                            Eigen::Index tile_k) {
  check_shapes(Q, K, V, mask);
  if (tile_q < 1 || tile_k < 1) throw std::invalid_argument("tile sizes must be >= 1");
  const Eigen::Index T_q = Q.rows(), T_v = K.rows();
  const double scale = 1.0 / std::sqrt(double(Q.cols()));
  Matrix acc = Matrix::Zero(T_q, V.cols());
  Eigen::VectorXd m = Eigen::VectorXd::Constant(T_q, kMinusInf);
  Eigen::VectorXd l = Eigen::VectorXd::Zero(T_q);
  std::vector<bool> any_allowed(std::size_t(T_q), false);
  for (Eigen::Index q0 = 0; q0 < T_q; q0 += tile_q) {
    const Eigen::Index q1 = std::min(q0 + tile_q, T_q);
    for (Eigen::Index k0 = 0; k0 < T_v; k0 += tile_k) {
      const Eigen::Index k1 = std::min(k0 + tile_k, T_v);
      const Matrix S = (Q.middleRows(q0, q1 - q0) * K.middleRows(k0, k1 - k0).transpose()) * scale;
      for (Eigen::Index r = 0; r < q1 - q0; ++r) {
        const Eigen::Index i = q0 + r;
        double tile_max = kMinusInf;
        for (Eigen::Index j = k0; j < k1; ++j) {
          if (forbidden(mask, i, j)) continue;
          any_allowed[i] = true;
          refuse_plus_inf(S(r, j - k0), i, j);
          tile_max = std::max(tile_max, S(r, j - k0));
        }
        if (tile_max == kMinusInf) continue;  // no allowed finite logit here: the row is unchanged
        const double m_new = std::max(m(i), tile_max);
        const double rescale = std::exp(m(i) - m_new);  // 0 on the row's first allowed tile
        l(i) *= rescale;
        acc.row(i) *= rescale;
        for (Eigen::Index j = k0; j < k1; ++j) {
          if (forbidden(mask, i, j)) continue;
          const double p = std::exp(S(r, j - k0) - m_new);
          l(i) += p;
          acc.row(i) += p * V.row(j);
        }
        m(i) = m_new;
      }
    }
  }
  for (Eigen::Index i = 0; i < T_q; ++i) refuse_empty_row(m(i), any_allowed[std::size_t(i)], i);
  TiledResult r;
  r.O = acc.array().colwise() / l.array();
  r.logsumexp = m.array() + l.array().log();
  return r;
}

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  check_shapes(Q, K, V, mask);
  const Matrix S = (Q * K.transpose()) / std::sqrt(double(Q.cols()));
  Matrix A = Matrix::Zero(S.rows(), S.cols());
  for (Eigen::Index i = 0; i < S.rows(); ++i) {
    double row_max = kMinusInf;
    bool any_allowed = false;
    for (Eigen::Index j = 0; j < S.cols(); ++j) {
      if (forbidden(mask, i, j)) continue;
      any_allowed = true;
      refuse_plus_inf(S(i, j), i, j);
      row_max = std::max(row_max, S(i, j));
    }
    refuse_empty_row(row_max, any_allowed, i);
    for (Eigen::Index j = 0; j < S.cols(); ++j)
      if (!forbidden(mask, i, j)) A(i, j) = std::exp(S(i, j) - row_max);
    A.row(i) /= A.row(i).sum();
  }
  return {A * V, A};
}

}  // namespace t1

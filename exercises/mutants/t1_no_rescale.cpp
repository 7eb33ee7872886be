// mutant: no_rescale_cpp
// exercise: T1
// misconception: in C++, when a key tile raises the running maximum the new tile's weights use the new maximum but the running sum and output keep the old scale (no exp(m_old - m_new)).
// violates: the online softmax (FlashAttention, Algorithm 1 and Theorem 1); shift invariance, section 32.2.4
// caught by: tiled_equals_naive
// key: tiled_no_rescale
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "attention_tiled.hpp"

namespace t1 {

namespace {

constexpr double kMinusInf = -std::numeric_limits<double>::infinity();

bool forbidden(const std::optional<Mask>& mask, Eigen::Index i, Eigen::Index j) {
  return mask && (*mask)(i, j);
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
  for (Eigen::Index q0 = 0; q0 < T_q; q0 += tile_q) {
    const Eigen::Index q1 = std::min(q0 + tile_q, T_q);
    for (Eigen::Index k0 = 0; k0 < T_v; k0 += tile_k) {
      const Eigen::Index k1 = std::min(k0 + tile_k, T_v);
      const Matrix S = (Q.middleRows(q0, q1 - q0) * K.middleRows(k0, k1 - k0).transpose()) * scale;
      for (Eigen::Index r = 0; r < q1 - q0; ++r) {
        const Eigen::Index i = q0 + r;
        double tile_max = kMinusInf;
        for (Eigen::Index j = k0; j < k1; ++j)
          if (!forbidden(mask, i, j)) tile_max = std::max(tile_max, S(r, j - k0));
        if (tile_max == kMinusInf) continue;  // no allowed key here: the row is unchanged
        const double m_new = std::max(m(i), tile_max);
        // BUG: l(i) and acc.row(i) are not multiplied by exp(m(i) - m_new)
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
  for (Eigen::Index i = 0; i < T_q; ++i)
    if (m(i) == kMinusInf)
      throw std::domain_error("query row " + std::to_string(i) + " has every key forbidden");
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
    for (Eigen::Index j = 0; j < S.cols(); ++j)
      if (!forbidden(mask, i, j)) row_max = std::max(row_max, S(i, j));
    if (row_max == kMinusInf)
      throw std::domain_error("query row " + std::to_string(i) + " has every key forbidden");
    for (Eigen::Index j = 0; j < S.cols(); ++j)
      if (!forbidden(mask, i, j)) A(i, j) = std::exp(S(i, j) - row_max);
    A.row(i) /= A.row(i).sum();
  }
  return {A * V, A};
}

}  // namespace t1

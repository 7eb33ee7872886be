// mutant: d_per_tile64_cpp
// op: attention_backward
// precision: float64
// misconception: D_i = rowsum(P o dP)_i (equal to rowsum(dO o O)_i) computed inside the tile loop, over the current key tile's keys only, in tiles of 64 keys and 64 queries (a FlashAttention-2-style kernel's realistic tile).
// violates: D_i is a sum over all the row's keys (FlashAttention-2 (Dao 2023), section 2.2 and Algorithm 2: D = rowsum(dO o O), computed once before the loops)
// caught by: backward_ds_rows_sum_to_zero
// why (decided before running): within a key tile row i of dS sums to D_tile (1 - sum_tile P_ij), nonzero once the row spans two tiles (T_v > 64) and no tile holds all its weight, so sum_j dK_j is not 0; only the generator's long backward cases (T_v from 65) reach a second tile of 64.
// key: backward_d_per_tile
#include "attention_backward.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace b1 {

namespace {

constexpr Eigen::Index kTile = 64;  // query and key tiles (the last ones ragged)

/// The forward pass row by row, keeping what Algorithm 2 needs: O and the
/// logsumexp L_i = m_i + log sum_j exp(S_ij - m_i) over the allowed keys.
template <class Forbidden>
void forward(const Matrix& Q, const Matrix& K, const Matrix& V, double scale,
             const Forbidden& forbidden, Matrix& O, Eigen::VectorXd& L) {
  const Eigen::Index T_q = Q.rows(), T_v = K.rows();
  O = Matrix::Zero(T_q, V.cols());
  L.resize(T_q);
  for (Eigen::Index i = 0; i < T_q; ++i) {
    const Eigen::RowVectorXd s = scale * (Q.row(i) * K.transpose());
    double m = -std::numeric_limits<double>::infinity();
    for (Eigen::Index j = 0; j < T_v; ++j)
      if (!forbidden(i, j)) m = std::max(m, s(j));
    if (m == -std::numeric_limits<double>::infinity())
      throw std::domain_error("query row " + std::to_string(i) + " has every key forbidden");
    double sum = 0.0;
    for (Eigen::Index j = 0; j < T_v; ++j) {
      if (forbidden(i, j)) continue;
      const double e = std::exp(s(j) - m);
      sum += e;
      O.row(i) += e * V.row(j);
    }
    O.row(i) /= sum;
    L(i) = m + std::log(sum);
  }
}

}  // namespace

Gradients attention_backward(const Matrix& Q, const Matrix& K, const Matrix& V,
                             const Matrix& dO, const std::optional<Mask>& mask, double scale,
                             bool causal) {
  const Eigen::Index T_q = Q.rows(), d_k = Q.cols(), T_v = K.rows(), d_v = V.cols();
  if (K.cols() != d_k || V.rows() != T_v || dO.rows() != T_q || dO.cols() != d_v)
    throw std::invalid_argument("shapes do not fit: need Q T_q x d_k, K T_v x d_k, "
                                "V T_v x d_v, dO T_q x d_v");
  if (mask && (mask->rows() != T_q || mask->cols() != T_v))
    throw std::invalid_argument("the mask is not T_q x T_v");
  if (std::isnan(scale)) {
    if (d_k == 0) throw std::invalid_argument("d_k = 0: the scale 1/sqrt(d_k) is undefined");
    scale = 1.0 / std::sqrt(static_cast<double>(d_k));
  }
  auto forbidden = [&](Eigen::Index i, Eigen::Index j) {
    return (mask && (*mask)(i, j)) || (causal && j > i);
  };
  Matrix O;
  Eigen::VectorXd L;
  forward(Q, K, V, scale, forbidden, O, L);
  // Algorithm 2's loops: key tiles outside, query tiles inside.
  Gradients g{Matrix::Zero(T_q, d_k), Matrix::Zero(T_v, d_k), Matrix::Zero(T_v, d_v)};
  for (Eigen::Index k0 = 0; k0 < T_v; k0 += kTile) {
    const Eigen::Index k1 = std::min(k0 + kTile, T_v);
    for (Eigen::Index q0 = 0; q0 < T_q; q0 += kTile) {
      const Eigen::Index q1 = std::min(q0 + kTile, T_q);
      // BUG: D_i = rowsum(P o dP)_i taken over this key tile only
      Eigen::VectorXd Dt = Eigen::VectorXd::Zero(q1 - q0);
      for (Eigen::Index i = q0; i < q1; ++i)
        for (Eigen::Index j = k0; j < k1; ++j)
          if (!forbidden(i, j))
            Dt(i - q0) += std::exp(scale * Q.row(i).dot(K.row(j)) - L(i)) * dO.row(i).dot(V.row(j));
      for (Eigen::Index i = q0; i < q1; ++i)
        for (Eigen::Index j = k0; j < k1; ++j) {
          const double P = forbidden(i, j) ? 0.0 : std::exp(scale * Q.row(i).dot(K.row(j)) - L(i));
          const double dP = dO.row(i).dot(V.row(j));
          const double dS = P * (dP - Dt(i - q0));
          g.dV.row(j) += P * dO.row(i);
          g.dQ.row(i) += scale * dS * K.row(j);
          g.dK.row(j) += scale * dS * Q.row(i);
        }
    }
  }
  return g;
}

}  // namespace b1

// mutant: d_from_p_cpp
// op: attention_backward
// precision: float64
// misconception: D_i taken as the row sum of P (which is 1) instead of rowsum(dO o O)_i: the rank-one term of the softmax's Jacobian read off P alone.
// violates: the softmax's gradient, dS_ij = P_ij (dP_ij - D_i) with D_i = rowsum(dO o O)_i (FlashAttention-2 (Dao 2023), section 2.2 and Algorithm 2)
// caught by: backward_ds_rows_sum_to_zero
// why (decided before running): row i of dS then sums to rowsum(P o dP)_i - 1, which is 0 only by accident, so the keys' gradients sum to c sum_i (D_i - 1) Q_i, far from the zero vector.
// key: backward_d_from_p
#include "attention_backward.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace b1 {

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
  const Matrix S = scale * (Q * K.transpose());
  Matrix P = Matrix::Zero(T_q, T_v);
  for (Eigen::Index i = 0; i < T_q; ++i) {
    double row_max = -std::numeric_limits<double>::infinity();
    for (Eigen::Index j = 0; j < T_v; ++j)
      if (!forbidden(i, j)) row_max = std::max(row_max, S(i, j));
    if (row_max == -std::numeric_limits<double>::infinity())
      throw std::domain_error("query row " + std::to_string(i) + " has every key forbidden");
    double sum = 0.0;
    for (Eigen::Index j = 0; j < T_v; ++j) {
      if (forbidden(i, j)) continue;
      P(i, j) = std::exp(S(i, j) - row_max);  // std::exp: forbidden stay exact zeros
      sum += P(i, j);
    }
    P.row(i) /= sum;
  }
  const Matrix O = P * V;
  Gradients g;
  g.dV = P.transpose() * dO;
  const Matrix dP = dO * V.transpose();
  const Eigen::VectorXd D = P.rowwise().sum();  // BUG: rowsum(P) = 1, not rowsum(dO o O)
  Matrix dS(T_q, T_v);
  for (Eigen::Index i = 0; i < T_q; ++i)
    for (Eigen::Index j = 0; j < T_v; ++j) dS(i, j) = P(i, j) * (dP(i, j) - D(i));
  g.dQ = scale * (dS * K);
  g.dK = scale * (dS.transpose() * Q);
  return g;
}

}  // namespace b1

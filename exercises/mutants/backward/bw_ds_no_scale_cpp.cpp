// mutant: ds_no_scale_cpp
// op: attention_backward
// precision: float64
// misconception: dS is taken as the gradient with respect to Q K^T itself: the logits' scale c is left out of both dQ = c dS K and dK = c dS^T Q.
// violates: the chain rule through S = c Q K^T: dQ = c dS K, dK = c dS^T Q (FlashAttention-2 (Dao 2023), section 2.2 and Algorithm 2)
// caught by: backward_oracle_agreement
// why (decided before running): dQ and dK come out sqrt(d_k) times too large (c = 1/sqrt(d_k)); for d_k > 1 that is a relative error of order 1, against a float64 bound of order 1e-15 of the entries.
// key: backward_scale_missing
// key parameter: gradient=dQ,dK
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
  const Eigen::VectorXd D = (dO.array() * O.array()).rowwise().sum();
  Matrix dS(T_q, T_v);
  for (Eigen::Index i = 0; i < T_q; ++i)
    for (Eigen::Index j = 0; j < T_v; ++j) dS(i, j) = P(i, j) * (dP(i, j) - D(i));
  g.dQ = dS * K;  // BUG: the scale c is missing
  g.dK = dS.transpose() * Q;  // BUG: the scale c is missing
  return g;
}

}  // namespace b1

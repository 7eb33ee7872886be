#include "my_kernel.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

Eigen::MatrixXf my_attention(const Eigen::MatrixXf& Q, const Eigen::MatrixXf& K,
                             const Eigen::MatrixXf& V, const BoolMatrix* forbidden) {
  const Eigen::Index t_q = Q.rows(), t_v = K.rows(), d_k = Q.cols();
  if (K.cols() != d_k || V.rows() != t_v ||
      (forbidden && (forbidden->rows() != t_q || forbidden->cols() != t_v)))
    throw std::invalid_argument("my_attention: shapes do not fit");
  const float minus_inf = -std::numeric_limits<float>::infinity();
  Eigen::MatrixXf out = Eigen::MatrixXf::Zero(t_q, V.cols());
  Eigen::VectorXf logits(t_v);
  const float inv_root = 1.0f / std::sqrt(float(d_k));
  for (Eigen::Index i = 0; i < t_q; ++i) {
    float top = minus_inf;
    for (Eigen::Index j = 0; j < t_v; ++j) {
      logits[j] = forbidden && (*forbidden)(i, j) ? minus_inf : Q.row(i).dot(K.row(j)) * inv_root;
      top = std::max(top, logits[j]);
    }
    if (top == minus_inf)
      throw std::invalid_argument("my_attention: query row " + std::to_string(i) + " has no allowed key");
    float total = 0;
    for (Eigen::Index j = 0; j < t_v; ++j) total += (logits[j] = std::exp(logits[j] - top));
    for (Eigen::Index j = 0; j < t_v; ++j) out.row(i) += logits[j] / total * V.row(j);
  }
  return out;
}

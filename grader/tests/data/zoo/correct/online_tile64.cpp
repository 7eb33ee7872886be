// zoo-entries: f3:float64
// Online softmax over key tiles of 64 (FlashAttention's running maximum m,
// running sum l and accumulator, rescaled by exp(m_old - m_new) when the
// maximum grows; tile GEMMs with Eigen); O = acc / l, and A recomputed from
// the final m and l.
#include "../zoo_common.hpp"

#include <algorithm>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  zoo::check_inputs(Q, K, V, mask);
  constexpr Eigen::Index tile = 64;
  constexpr double minus_inf = -std::numeric_limits<double>::infinity();
  const Eigen::Index T_q = Q.rows(), T_v = K.rows(), d_v = V.cols();
  const double scale = std::sqrt(static_cast<double>(Q.cols()));
  Matrix S(T_q, T_v), acc = Matrix::Zero(T_q, d_v);
  Eigen::VectorXd m = Eigen::VectorXd::Constant(T_q, minus_inf), l = Eigen::VectorXd::Zero(T_q);
  for (Eigen::Index start = 0; start < T_v; start += tile) {
    const Eigen::Index n = std::min(tile, T_v - start);
    S.middleCols(start, n) = (Q * K.middleRows(start, n).transpose()) / scale;
    Matrix P = Matrix::Zero(T_q, n);
    for (Eigen::Index i = 0; i < T_q; ++i) {
      double m_new = m(i);
      for (Eigen::Index j = start; j < start + n; ++j)
        if (zoo::allowed(mask, i, j)) m_new = std::max(m_new, zoo::finite_logit(S(i, j)));
        else S(i, j) = minus_inf;
      if (m_new == minus_inf) continue;  // nothing allowed yet in this row
      const double alpha = m(i) == minus_inf ? 0.0 : std::exp(m(i) - m_new);
      for (Eigen::Index j = 0; j < n; ++j)
        if (zoo::allowed(mask, i, start + j)) P(i, j) = std::exp(S(i, start + j) - m_new);
      l(i) = alpha * l(i) + P.row(i).sum();
      acc.row(i) *= alpha;
      m(i) = m_new;
    }
    acc += P * V.middleRows(start, n);
  }
  Matrix A = Matrix::Zero(T_q, T_v);
  for (Eigen::Index i = 0; i < T_q; ++i) {
    for (Eigen::Index j = 0; j < T_v; ++j)
      if (zoo::allowed(mask, i, j)) A(i, j) = std::exp(S(i, j) - m(i)) / l(i);
    acc.row(i) /= l(i);
  }
  return {acc, A};
}

}  // namespace f3

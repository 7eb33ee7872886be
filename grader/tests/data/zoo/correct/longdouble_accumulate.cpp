// zoo-entries: f3:float64
// Every operation in long double (x87 80-bit on x86-64): the dot products,
// the scale, the maximum, expl, the row sum, A and O = A V; each result
// rounded to double once, at the end.
#include "../zoo_common.hpp"

#include <vector>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  zoo::check_inputs(Q, K, V, mask);
  using L = long double;
  const Eigen::Index T_q = Q.rows(), T_v = K.rows(), d_k = Q.cols(), d_v = V.cols();
  const L scale = std::sqrt(static_cast<L>(d_k));
  Matrix O(T_q, d_v), A(T_q, T_v);
  std::vector<L> s(T_v), a(T_v);
  for (Eigen::Index i = 0; i < T_q; ++i) {
    L m = -std::numeric_limits<L>::infinity();
    for (Eigen::Index j = 0; j < T_v; ++j) {
      if (!zoo::allowed(mask, i, j)) continue;
      L dot = 0;
      for (Eigen::Index r = 0; r < d_k; ++r) dot += static_cast<L>(Q(i, r)) * K(j, r);
      s[j] = zoo::finite_logit(dot / scale);
      m = std::max(m, s[j]);
    }
    L z = 0;
    for (Eigen::Index j = 0; j < T_v; ++j) z += a[j] = zoo::allowed(mask, i, j) ? std::exp(s[j] - m) : 0;
    for (Eigen::Index j = 0; j < T_v; ++j) A(i, j) = static_cast<double>(a[j] /= z);
    for (Eigen::Index l = 0; l < d_v; ++l) {
      L o = 0;
      for (Eigen::Index j = 0; j < T_v; ++j) o += a[j] * V(j, l);
      O(i, l) = static_cast<double>(o);
    }
  }
  return {O, A};
}

}  // namespace f3

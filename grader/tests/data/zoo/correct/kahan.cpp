// zoo-entries: f3:float64
// Kahan-compensated sums in double for every sum: the dot products of S,
// the row sum Z and each entry of O = A V; std::exp per allowed entry.
#include "../zoo_common.hpp"

namespace f3 {

namespace {

struct Kahan {
  double sum = 0, carry = 0;
  void add(double x) {
    const double y = x - carry;
    const double t = sum + y;
    carry = (t - sum) - y;
    sum = t;
  }
};

}  // namespace

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  zoo::check_inputs(Q, K, V, mask);
  const Eigen::Index T_q = Q.rows(), T_v = K.rows(), d_k = Q.cols(), d_v = V.cols();
  const double scale = std::sqrt(static_cast<double>(d_k));
  Matrix S = Matrix::Constant(T_q, T_v, -std::numeric_limits<double>::infinity());
  Matrix A = Matrix::Zero(T_q, T_v), O(T_q, d_v);
  for (Eigen::Index i = 0; i < T_q; ++i) {
    for (Eigen::Index j = 0; j < T_v; ++j) {
      if (!zoo::allowed(mask, i, j)) continue;
      Kahan dot;
      for (Eigen::Index r = 0; r < d_k; ++r) dot.add(Q(i, r) * K(j, r));
      S(i, j) = zoo::finite_logit(dot.sum / scale);
    }
    const double m = S.row(i).maxCoeff();
    Kahan z;
    for (Eigen::Index j = 0; j < T_v; ++j)
      if (zoo::allowed(mask, i, j)) z.add(A(i, j) = std::exp(S(i, j) - m));
    A.row(i) /= z.sum;
    for (Eigen::Index l = 0; l < d_v; ++l) {
      Kahan o;
      for (Eigen::Index j = 0; j < T_v; ++j) o.add(A(i, j) * V(j, l));
      O(i, l) = o.sum;
    }
  }
  return {O, A};
}

}  // namespace f3

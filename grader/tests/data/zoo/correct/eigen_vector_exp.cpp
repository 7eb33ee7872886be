// zoo-entries: f3:float64
// Eigen's array operations throughout: one GEMM for S, the row maxima by
// rowwise().maxCoeff(), Eigen's vectorised .array().exp() on the shifted
// logits, a select that puts exact zeros at forbidden entries (Eigen 3.4's
// exp(-inf) is 5.56e-309, not 0), the row sums by rowwise().sum(), and a GEMM for O.
#include "../zoo_common.hpp"

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  zoo::check_inputs(Q, K, V, mask);
  const Eigen::Index T_q = Q.rows(), T_v = K.rows();
  const Mask forbidden = mask ? *mask : Mask::Constant(T_q, T_v, false);
  Matrix S = (Q * K.transpose()) / std::sqrt(static_cast<double>(Q.cols()));
  if (!forbidden.select(Matrix::Zero(T_q, T_v), S).allFinite())
    throw std::domain_error("a logit overflows");
  S = forbidden.select(Matrix::Constant(T_q, T_v, -std::numeric_limits<double>::infinity()), S);
  const Eigen::VectorXd m = S.rowwise().maxCoeff();
  Matrix E = (S.colwise() - m).array().exp().matrix();
  E = forbidden.select(Matrix::Zero(T_q, T_v), E);
  const Eigen::VectorXd z = E.rowwise().sum();
  Matrix A = (E.array().colwise() / z.array()).matrix();
  return {A * V, A};
}

}  // namespace f3

// Test fixture: a correct-looking F3 submission that also defines main()
// (to test it locally); the grader's harness holds main, so linking fails.
#include "attention.hpp"

#include <cmath>
#include <iostream>
#include <stdexcept>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  if (Q.cols() != K.cols()) throw std::invalid_argument("d_k mismatch");
  Matrix S = Q * K.transpose() / std::sqrt(static_cast<double>(Q.cols()));
  if (mask) S = mask->select(Matrix::Constant(S.rows(), S.cols(), -INFINITY), S);
  Matrix A = S;
  for (Eigen::Index i = 0; i < S.rows(); ++i) {
    const double m = S.row(i).maxCoeff();
    for (Eigen::Index j = 0; j < S.cols(); ++j) A(i, j) = std::exp(S(i, j) - m);
    A.row(i) /= A.row(i).sum();
  }
  return {A * V, A};
}

}  // namespace f3

int main() {
  f3::Matrix Q = f3::Matrix::Identity(2, 2);
  std::cout << f3::attention(Q, Q, Q, std::nullopt).A << "\n";
}

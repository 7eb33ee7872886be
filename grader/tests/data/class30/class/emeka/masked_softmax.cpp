// F2 masked softmax -- Emeka
// vectorised with Eigen arrays; the forbidden entries are zeroed with select()
// because the header says .exp() of -inf is not exactly 0.
#include "masked_softmax.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace f2 {

Matrix masked_softmax(const Matrix& S, const Mask& mask) {
  if (mask.rows() != S.rows() || mask.cols() != S.cols())
    throw std::invalid_argument("mask is not the shape of S");
  const double ninf = -std::numeric_limits<double>::infinity();
  Mask forbidden = mask;
  for (Eigen::Index i = 0; i < S.rows(); ++i)
    for (Eigen::Index j = 0; j < S.cols(); ++j)
      if (S(i, j) == ninf) forbidden(i, j) = true;

  Matrix X = forbidden.select(Matrix::Constant(S.rows(), S.cols(), ninf), S);
  Matrix A(S.rows(), S.cols());
  for (Eigen::Index i = 0; i < S.rows(); ++i) {
    if (forbidden.row(i).all())
      throw std::domain_error("row " + std::to_string(i) + " is fully masked");
    const double m = X.row(i).maxCoeff();
    Eigen::ArrayXd e = (X.row(i).array() - m).exp().transpose();
    A.row(i) = (e / e.sum()).matrix().transpose();
  }
  return forbidden.select(Matrix::Zero(S.rows(), S.cols()), A);
}

}  // namespace f2

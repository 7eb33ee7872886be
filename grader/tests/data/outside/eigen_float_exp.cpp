// Written with Eigen arrays in float (as in many inference engines): the
// forbidden logits become -inf and the exponentials are taken with Eigen's
// vectorised exp. Expected: tiny_positive_exp and/or low_precision, or no key.
#include "attention.hpp"

#include <limits>
#include <stdexcept>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  if (Q.cols() != K.cols() || K.rows() != V.rows()) throw std::invalid_argument("shapes");
  using MatF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const MatF q = Q.cast<float>(), k = K.cast<float>(), v = V.cast<float>();
  MatF s = (q * k.transpose()) / std::sqrt(float(Q.cols()));
  if (mask) {
    if (mask->rows() != s.rows() || mask->cols() != s.cols()) throw std::invalid_argument("mask");
    for (Eigen::Index i = 0; i < s.rows(); ++i) {
      if (mask->row(i).all()) throw std::domain_error("fully masked row");
      for (Eigen::Index j = 0; j < s.cols(); ++j)
        if ((*mask)(i, j)) s(i, j) = -std::numeric_limits<float>::infinity();
    }
  }
  Eigen::VectorXf m = s.rowwise().maxCoeff();
  MatF e = (s.colwise() - m).array().exp().matrix();
  MatF a = e.array().colwise() / e.rowwise().sum().array();
  return {(a * v).cast<double>(), a.cast<double>()};
}

}  // namespace f3

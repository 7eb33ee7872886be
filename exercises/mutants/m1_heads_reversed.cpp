// mutant: heads_reversed_cpp
// exercise: M1
// misconception: in C++, head i's output is written into column block h-1-i of the concatenation, so the heads meet the wrong row blocks of W_O.
// violates: O = [O_1, ..., O_h] W_O, section 32.2.5 (head i in columns i d_v to (i+1) d_v - 1)
// caught by: heads_in_order
// key: mh_heads_reversed
#include <cmath>
#include <limits>
#include <stdexcept>

#include "multi_head_attention.hpp"

namespace m1 {

namespace {

Matrix head_output(const Matrix& Q, const Matrix& K, const Matrix& V,
                   const std::optional<Mask>& mask) {
  const Matrix S = (Q * K.transpose()) / std::sqrt(double(Q.cols()));
  Matrix A(S.rows(), S.cols());
  for (Eigen::Index i = 0; i < S.rows(); ++i) {
    double top = -std::numeric_limits<double>::infinity();
    for (Eigen::Index j = 0; j < S.cols(); ++j)
      if (!(mask && (*mask)(i, j))) top = std::max(top, S(i, j));
    if (std::isinf(top)) throw std::domain_error("a query row has every key forbidden");
    for (Eigen::Index j = 0; j < S.cols(); ++j)
      A(i, j) = (mask && (*mask)(i, j)) ? 0.0 : std::exp(S(i, j) - top);
    A.row(i) /= A.row(i).sum();
  }
  return A * V;
}

}  // namespace

Matrix multi_head_attention(const Matrix& X, const std::vector<HeadWeights>& heads,
                            const Matrix& W_O, const std::optional<Mask>& mask) {
  const Eigen::Index h = Eigen::Index(heads.size());
  const Eigen::Index d_v = heads.front().W_V.cols();
  Matrix C(X.rows(), h * d_v);
  for (Eigen::Index i = 0; i < h; ++i) {
    const HeadWeights& w = heads[std::size_t(i)];
    C.middleCols((h - 1 - i) * d_v, d_v) =  // BUG: block h-1-i instead of i
        head_output(X * w.W_Q, X * w.W_K, X * w.W_V, mask);
  }
  return C * W_O;
}

}  // namespace m1

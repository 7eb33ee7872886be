// mutant: wrong_axis_cpp
// exercise: F1
// misconception: the softmax normalises each column (over the queries) instead of each row, as an Eigen colwise() where rowwise() was meant.
// violates: F1 (each row of A sums to 1), sections 32.2.8-32.2.9
// caught by: row_stochastic
// key: wrong_axis
#include "softmax_rows.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace f1 {

Matrix softmax_rows(const Matrix& S) {
  constexpr double minus_inf = -std::numeric_limits<double>::infinity();
  for (Eigen::Index i = 0; i < S.rows(); ++i)
    if (S.row(i).maxCoeff() == minus_inf)
      throw std::domain_error("row " + std::to_string(i) + " has every logit -inf");
  Matrix A(S.rows(), S.cols());
  for (Eigen::Index j = 0; j < S.cols(); ++j) {  // BUG: per column, not per row
    const double col_max = S.col(j).maxCoeff();
    double sum = 0.0;
    for (Eigen::Index i = 0; i < S.rows(); ++i) {
      A(i, j) = col_max == minus_inf ? 0.0 : std::exp(S(i, j) - col_max);
      sum += A(i, j);
    }
    if (sum > 0) A.col(j) /= sum;
  }
  return A;
}

}  // namespace f1

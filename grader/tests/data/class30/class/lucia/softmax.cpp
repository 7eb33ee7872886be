#include "softmax.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace lucia {

f3::Matrix masked_row_softmax(const f3::Matrix& S, const std::optional<f3::Mask>& mask) {
  if (mask && (mask->rows() != S.rows() || mask->cols() != S.cols()))
    throw std::invalid_argument("mask shape does not match the scores");
  f3::Matrix A = f3::Matrix::Zero(S.rows(), S.cols());
  for (Eigen::Index i = 0; i < S.rows(); ++i) {
    std::vector<Eigen::Index> keys;
    for (Eigen::Index j = 0; j < S.cols(); ++j)
      if (!mask || !(*mask)(i, j)) keys.push_back(j);
    if (keys.empty()) throw std::domain_error("query " + std::to_string(i) + " is fully masked");
    double m = -std::numeric_limits<double>::infinity();
    for (auto j : keys) m = std::max(m, S(i, j));
    double z = 0;
    for (auto j : keys) z += std::exp(S(i, j) - m);
    for (auto j : keys) A(i, j) = std::exp(S(i, j) - m) / z;
  }
  return A;
}

}  // namespace lucia

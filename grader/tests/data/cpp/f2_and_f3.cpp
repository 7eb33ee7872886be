// Homework 32.2.8, exercises F2 and F3 in one file (a common layout: the
// attention of F3 calls my own masked softmax of F2).
// Built with: g++ -std=c++20 -Iexercises/F2 -Iexercises/F3 -I/usr/include/eigen3 -c f2_and_f3.cpp

#include "masked_softmax.hpp"
#include "attention.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace {

const double NEG_INF = -std::numeric_limits<double>::infinity();

std::string shape(const Eigen::Index r, const Eigen::Index c) {
  return std::to_string(r) + "x" + std::to_string(c);
}

}  // namespace

// ---- F2 ----
namespace f2 {

Matrix masked_softmax(const Matrix& S, const Mask& mask) {
  if (mask.rows() != S.rows() || mask.cols() != S.cols())
    throw std::invalid_argument("masked_softmax: mask is " + shape(mask.rows(), mask.cols()) +
                                ", S is " + shape(S.rows(), S.cols()));
  Matrix A = Matrix::Zero(S.rows(), S.cols());
  for (Eigen::Index i = 0; i < S.rows(); ++i) {
    double m = NEG_INF;
    for (Eigen::Index j = 0; j < S.cols(); ++j) {
      if (std::isnan(S(i, j)) || S(i, j) == -NEG_INF)
        throw std::domain_error("masked_softmax: S(" + std::to_string(i) + "," + std::to_string(j) +
                                ") is not a logit");
      if (!mask(i, j) && S(i, j) != NEG_INF && S(i, j) > m) m = S(i, j);
    }
    if (m == NEG_INF)
      throw std::domain_error("masked_softmax: row " + std::to_string(i) + " is fully masked");
    double total = 0;
    for (Eigen::Index j = 0; j < S.cols(); ++j)
      if (!mask(i, j) && S(i, j) != NEG_INF) {
        A(i, j) = std::exp(S(i, j) - m);
        total += A(i, j);
      }
    A.row(i) /= total;
  }
  return A;
}

}  // namespace f2

// ---- F3 ----
namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  if (Q.cols() != K.cols())
    throw std::invalid_argument("attention: d_k of Q is " + std::to_string(Q.cols()) +
                                " but of K " + std::to_string(K.cols()));
  if (K.rows() != V.rows())
    throw std::invalid_argument("attention: K has " + std::to_string(K.rows()) +
                                " rows but V has " + std::to_string(V.rows()));
  if (Q.cols() == 0) throw std::invalid_argument("attention: d_k is 0");
  if (mask && (mask->rows() != Q.rows() || mask->cols() != K.rows()))
    throw std::invalid_argument("attention: mask is " + shape(mask->rows(), mask->cols()));
  for (const Matrix* M : {&Q, &K, &V})
    if (!M->allFinite()) throw std::domain_error("attention: an input is not finite");
  Matrix S = (Q * K.transpose()) / std::sqrt(double(Q.cols()));
  f2::Mask forbidden = mask ? *mask : f2::Mask::Constant(Q.rows(), K.rows(), false);
  // my F2 does the softmax
  Matrix A = f2::masked_softmax(S, forbidden);
  return {A * V, A};
}

}  // namespace f3

// A C++ port of code written against torch.nn.functional.scaled_dot_product_attention:
// its boolean attn_mask means true = "take part in attention", and the port
// keeps that meaning (logits of keys whose mask is false become -inf), the
// opposite of this interface. Expected: inverted_mask, or no key.
#include "attention.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace f3 {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// Additive bias from a boolean attn_mask, as torch builds it: 0 where the
// mask is true, -inf where it is false.
Matrix bias_from(const Mask& attn_mask) {
  Matrix bias = Matrix::Zero(attn_mask.rows(), attn_mask.cols());
  for (Eigen::Index i = 0; i < bias.rows(); ++i)
    for (Eigen::Index j = 0; j < bias.cols(); ++j)
      if (!attn_mask(i, j)) bias(i, j) = kNegInf;
  return bias;
}

}  // namespace

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  if (Q.cols() != K.cols() || K.rows() != V.rows())
    throw std::invalid_argument("query/key/value shapes are inconsistent");
  const double scale_factor = 1.0 / std::sqrt(double(Q.cols()));
  Matrix attn_weight = Q * K.transpose() * scale_factor;
  if (mask) {
    if (mask->rows() != attn_weight.rows() || mask->cols() != attn_weight.cols())
      throw std::invalid_argument("attn_mask shape");
    attn_weight += bias_from(*mask);
  }
  for (Eigen::Index i = 0; i < attn_weight.rows(); ++i) {
    const double m = attn_weight.row(i).maxCoeff();
    if (m == kNegInf) throw std::domain_error("query row cannot attend to any key");
    double sum = 0;
    for (Eigen::Index j = 0; j < attn_weight.cols(); ++j)
      sum += (attn_weight(i, j) = std::exp(attn_weight(i, j) - m));
    attn_weight.row(i) /= sum;
  }
  return {attn_weight * V, attn_weight};
}

}  // namespace f3

// The oracle's input checks (oracle_inputs.hpp).
#include "oracle_inputs.hpp"

#include <cmath>

namespace attn::ref::detail {

std::string shape(std::ptrdiff_t r, std::ptrdiff_t c) {
  return std::to_string(r) + "x" + std::to_string(c);
}

void require_finite(const DMatrix& M, const std::string& name) {
  for (std::ptrdiff_t i = 0; i < M.rows(); ++i)
    for (std::ptrdiff_t j = 0; j < M.cols(); ++j)
      if (!std::isfinite(M(i, j)))
        throw OracleRefusal("oracle: " + name + "(" + std::to_string(i) + ", " +
                            std::to_string(j) + ") is not finite");
}

void require_attention_inputs(const DMatrix& Q, const DMatrix& K, const DMatrix& V,
                              std::optional<double> scale) {
  if (Q.cols() != K.cols())
    throw OracleRefusal("oracle: Q is " + shape(Q.rows(), Q.cols()) + " and K is " +
                        shape(K.rows(), K.cols()) + "; d_k differs");
  if (Q.cols() == 0) throw OracleRefusal("oracle: d_k = 0");
  if (K.rows() != V.rows())
    throw OracleRefusal("oracle: K is " + shape(K.rows(), K.cols()) + " and V is " +
                        shape(V.rows(), V.cols()) + "; T_v differs");
  require_finite(Q, "Q");
  require_finite(K, "K");
  require_finite(V, "V");
  if (scale && !std::isfinite(*scale)) throw OracleRefusal("oracle: the scale is not finite");
}

BoolMatrix allowed_from(const std::optional<BoolMatrix>& mask, std::ptrdiff_t rows,
                        std::ptrdiff_t cols) {
  if (!mask) return BoolMatrix::Constant(rows, cols, true);
  if (mask->rows() != rows || mask->cols() != cols)
    throw OracleRefusal("oracle: mask is " + shape(mask->rows(), mask->cols()) +
                        " but the logits are " + shape(rows, cols));
  BoolMatrix allowed(rows, cols);
  for (std::ptrdiff_t i = 0; i < rows; ++i)
    for (std::ptrdiff_t j = 0; j < cols; ++j) allowed(i, j) = !(*mask)(i, j);
  return allowed;
}

RealMatrix given_logits(const DMatrix& S, BoolMatrix& allowed) {
  RealMatrix R(S.rows(), S.cols());
  for (std::ptrdiff_t i = 0; i < S.rows(); ++i)
    for (std::ptrdiff_t j = 0; j < S.cols(); ++j) {
      const double s = S(i, j);
      if (std::isnan(s) || s == HUGE_VAL)
        throw OracleRefusal("oracle: S(" + std::to_string(i) + ", " + std::to_string(j) +
                            ") is NaN or +Inf");
      if (s == -HUGE_VAL) {
        allowed(i, j) = false;  // -Inf logit: forbidden (Lemma 2)
      } else {
        R(i, j) = Real(s);
      }
    }
  return R;
}

}  // namespace attn::ref::detail

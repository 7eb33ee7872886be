// The rule for logits, decided on the exact logits.
#include "attn/ref/logit_rule.hpp"

#include <boost/multiprecision/cpp_bin_float.hpp>

namespace attn::ref {

std::optional<LogitRefusal> logit_rule(const DMatrix& Q, const DMatrix& K,
                                       const std::optional<BoolMatrix>& mask, double max_finite) {
  if (Q.cols() != K.cols() || Q.cols() == 0)
    throw OracleRefusal("logit_rule: Q and K need the same d_k >= 1");
  if (mask && (mask->rows() != Q.rows() || mask->cols() != K.rows()))
    throw OracleRefusal("logit_rule: the mask is not T_q x T_v");
  const Real root = boost::multiprecision::sqrt(Real(Q.cols()));
  const Real top(max_finite);
  for (std::ptrdiff_t i = 0; i < Q.rows(); ++i) {
    bool any_allowed = false, any_kept = false;
    for (std::ptrdiff_t j = 0; j < K.rows(); ++j) {
      if (mask && (*mask)(i, j)) continue;  // never read
      any_allowed = true;
      Real s = 0;
      for (std::ptrdiff_t r = 0; r < Q.cols(); ++r) s += Real(Q(i, r)) * Real(K(j, r));
      s /= root;
      if (s > top) return LogitRefusal{i, j};
      if (s >= -top) any_kept = true;
    }
    if (any_allowed && !any_kept) return LogitRefusal{i, -1};
  }
  return std::nullopt;
}

}  // namespace attn::ref

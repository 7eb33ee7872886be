#pragma once
// The high-precision oracle (namespace attn::ref): scaled dot-product
// attention evaluated from its definition in 50-digit arithmetic. It shares
// no code with lib/; inputs are doubles, converted exactly.

#include <optional>
#include <stdexcept>
#include <vector>

#include <Eigen/Core>
#include "attn/ref/real.hpp"

namespace attn::ref {

using DMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using BoolMatrix = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// The oracle cannot answer: shapes do not fit, an input is not finite, or a
/// row has no allowed entry (what the library must refuse). `row()` is the
/// offending query row, or -1.
class OracleRefusal : public std::domain_error {
 public:
  OracleRefusal(const std::string& what, std::ptrdiff_t row = -1)
      : std::domain_error(what), row_(row) {}
  std::ptrdiff_t row() const noexcept { return row_; }

 private:
  std::ptrdiff_t row_;
};

/// Exact softmax of logits S (Real), row by row, over allowed entries:
/// A_ij = exp(S_ij) / sum_{allowed j'} exp(S_ij') (section 32.2.4, Lemma 2),
/// 0 where forbidden. `allowed(i, j)` false = forbidden.
/// logsumexp_i = log sum_{allowed j} exp(S_ij) is filled when non-null.
/// Throws OracleRefusal for a row with no allowed entry.
RealMatrix exact_softmax(const RealMatrix& S, const BoolMatrix& allowed,
                         std::vector<Real>* logsumexp = nullptr);

/// Everything the oracle knows about one attention call.
struct ExactAttention {
  RealMatrix S;   ///< T_q x T_v, Q K^T / sqrt(d_k) (Lemma 1)
  RealMatrix A;   ///< T_q x T_v weights, exact zeros where forbidden
  RealMatrix O;   ///< T_q x d_v, A V
  std::vector<Real> logsumexp;  ///< per query row, over allowed keys
  BoolMatrix allowed;           ///< T_q x T_v, the complement of the mask
};

/// Q: T_q x d_k, K: T_v x d_k, V: T_v x d_v, mask: T_q x T_v (true = forbidden).
/// `scale`: the logits are S = scale Q K^T with the double `scale` taken
/// exactly (a kernel's explicit softmax scale, as PyTorch's and
/// flash-attention's `scale` / `softmax_scale`); nullopt is the text's
/// 1/sqrt(d_k) (Lemma 1), evaluated in Real.
/// Throws OracleRefusal on shape mismatch, non-finite input or scale,
/// d_k == 0, or a fully forbidden row.
ExactAttention exact_attention(const DMatrix& Q, const DMatrix& K, const DMatrix& V,
                               const std::optional<BoolMatrix>& mask,
                               std::optional<double> scale = std::nullopt);

/// Softmax of double logits S with an optional mask; -Inf in S is forbidden.
/// Throws OracleRefusal on NaN/+Inf, mask shape, or a fully forbidden row.
struct ExactSoftmax {
  RealMatrix S;
  RealMatrix A;
  std::vector<Real> logsumexp;
  BoolMatrix allowed;
};
ExactSoftmax exact_masked_softmax(const DMatrix& S, const std::optional<BoolMatrix>& mask);

/// Rounds a Real matrix to double (round to nearest).
DMatrix to_double(const RealMatrix& M);

}  // namespace attn::ref

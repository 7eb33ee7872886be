#pragma once
// The oracle's input checks, shared by its two tiers (oracle.cpp, 50 digits;
// extended_reference.cpp, long double): the same refusals for the same inputs.

#include <optional>
#include <string>

#include "attn/ref/oracle.hpp"

namespace attn::ref::detail {

/// "3x4".
std::string shape(std::ptrdiff_t r, std::ptrdiff_t c);

/// OracleRefusal naming the entry if M holds NaN or +-Inf.
void require_finite(const DMatrix& M, const std::string& name);

/// OracleRefusal unless Q (T_q x d_k), K (T_v x d_k), V (T_v x d_v) fit,
/// d_k >= 1, every entry and the scale are finite.
void require_attention_inputs(const DMatrix& Q, const DMatrix& K, const DMatrix& V,
                              std::optional<double> scale);

/// The complement of the mask (all true without one); OracleRefusal if its
/// shape is not rows x cols.
BoolMatrix allowed_from(const std::optional<BoolMatrix>& mask, std::ptrdiff_t rows,
                        std::ptrdiff_t cols);

/// Given logits S as Real; -Inf entries become forbidden in `allowed` (Lemma 2);
/// OracleRefusal for NaN or +Inf.
RealMatrix given_logits(const DMatrix& S, BoolMatrix& allowed);

}  // namespace attn::ref::detail

#pragma once
// The rule for logits, as the oracle states it (docs/ARCHITECTURE.md, "lib/":
// the library implements it in lib/src/logit_rule.hpp, the model solutions
// follow it). The oracle's own arithmetic never overflows, so what it
// decides here is whether a subject computing the logits
// S = Q K^T / sqrt(d_k) in a type whose largest finite value is `max_finite`
// can answer:
// - only entries the mask allows are read;
// - an allowed exact logit above max_finite (it rounds to +Inf) must be
//   refused, naming that entry (the first in row-major order);
// - an allowed exact logit below -max_finite rounds to -Inf and gets weight
//   0 (its exact weight, rounded to the type, is 0 too), unless every allowed
//   logit of its row does: that row must be refused (col = -1).
// Entries within a rounding of +-max_finite are not decided reliably by an
// a-priori rule, nor is a logit whose evaluation overflows part way (two
// products beyond max_finite with opposite signs give NaN in the type,
// which is refused); generators and tests keep away from both.

#include <optional>

#include "attn/ref/oracle.hpp"

namespace attn::ref {

struct LogitRefusal {
  std::ptrdiff_t row = -1;
  std::ptrdiff_t col = -1;  ///< -1: every allowed logit of the row overflows to -Inf
};

/// nullopt when the subject must answer; else where it must refuse.
/// Q: T_q x d_k, K: T_v x d_k (finite), mask: T_q x T_v (true = forbidden) or
/// none. Throws OracleRefusal if the shapes do not fit or d_k == 0.
std::optional<LogitRefusal> logit_rule(const DMatrix& Q, const DMatrix& K,
                                       const std::optional<BoolMatrix>& mask, double max_finite);

}  // namespace attn::ref

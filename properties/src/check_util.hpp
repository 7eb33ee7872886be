#pragma once
// Pieces shared by the property checks (private to properties/).

#include <optional>
#include <string>

#include "attn/prop/case.hpp"
#include "attn/prop/outcome.hpp"
#include "attn/prop/subject.hpp"
#include "attn/prop/verdict.hpp"
#include "attn/ref/error_bound.hpp"
#include "attn/ref/oracle.hpp"

namespace attn::prop::detail {

/// T_q, T_v and d_v of a case.
Index T_q(const Case& c);
Index T_v(const Case& c);

/// A failure unless the subject returned values of the right shapes:
/// A is T_q x T_v (Lemma 1) and, for attention, O is T_q x d_v.
std::optional<Failure> require_answer(const Outcome& o, const Case& c);

/// The oracle's answer and the error bound for the subject's precision.
struct Expected {
  ref::RealMatrix A, O;
  ref::DMatrix bound_A, bound_O;
  ref::BoolMatrix allowed;
};
/// Throws ref::OracleRefusal when the case has no answer (the generators avoid that).
Expected expected_for(const Case& c, const Precision& p);

ref::PrecisionModel precision_model(const Precision& p);

/// A failure at the worst entry if any |actual - exact| exceeds its bound, or
/// an entry is NaN or Inf. `name` is "A" or "O".
std::optional<Failure> compare_with_bound(const std::string& name, const DMatrix& actual,
                                          const ref::RealMatrix& exact, const DMatrix& bound);

/// Attaches the outcome to a failure (for the report).
std::optional<Failure> with_outcome(std::optional<Failure> f, const Outcome& o);

}  // namespace attn::prop::detail

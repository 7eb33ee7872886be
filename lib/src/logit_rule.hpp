#pragma once
// The rule for logits, written once for every operation of the library
// (private to lib/; docs/ARCHITECTURE.md, "lib/", states it for users and
// for the oracle, reference/include/attn/ref/logit_rule.hpp):
//
// Only the entries the mask allows are looked at: a forbidden entry's logit
// is never read, whatever it holds. At an allowed entry,
// - NaN, or +Inf, is refused: NonFiniteInputError on "S" with the entry. For
//   logits computed from finite Q and K, +Inf is an overflow of the type: the
//   message says so (not "inputs must be finite");
// - -Inf given as input (softmax_rows, masked_softmax: the text's F2 matrix)
//   means "forbidden", and a row with no other allowed entry is a
//   FullyMaskedRowError;
// - -Inf computed from finite Q and K (an overflow downwards) gets weight
//   exactly 0, which is also its exact weight rounded to the type, unless
//   every allowed logit of the row overflowed: that row's softmax cannot be
//   computed in the type, and is refused with NonFiniteInputError (the mask
//   allowed those keys, so it is not a FullyMaskedRowError).

#include <cmath>
#include <limits>
#include <string>

#include "attn/errors.hpp"
#include "attn/matrix.hpp"

namespace attn::detail {

/// Where the logits come from: given by the user, or computed Q K^T / sqrt(d_k).
enum class Logits { given, computed };

template <class T>
const char* type_name() {
  return sizeof(T) == sizeof(float) ? "float" : "double";
}

/// The reason NonFiniteInputError gives for an overflowing computed logit.
template <class T>
std::string overflow_reason(bool whole_row) {
  const std::string t = type_name<T>();
  return whole_row
             ? std::string("every allowed logit of this row overflows to -inf in ") + t +
                   " (|Q_i . K_j| / sqrt(d_k) beyond the largest " + t +
                   "), so its softmax cannot be computed in " + t
             : std::string("the logit overflows ") + t + ": |Q_i . K_j| / sqrt(d_k) is beyond the largest " +
                   t + ", so this row's softmax cannot be computed in " + t;
}

/// Applies the rule to the allowed entry S(i, j) = s of a T_q x T_v matrix of
/// logits; true if it takes part in the softmax, false if its weight is 0.
/// Sets *overflowed for a computed -Inf. Throws NonFiniteInputError.
template <class T>
bool logit_takes_part(T s, Index i, Index j, Index T_q, Index T_v, Logits kind, const char* where,
                      bool* overflowed) {
  if (std::isnan(s) || s == std::numeric_limits<T>::infinity()) {
    throw NonFiniteInputError("S", i, j, static_cast<double>(s), T_q, T_v, where,
                              kind == Logits::computed && !std::isnan(s)
                                  ? overflow_reason<T>(false)
                                  : std::string("NaN and Inf are not valid logits"));
  }
  if (s == -std::numeric_limits<T>::infinity()) {
    if (kind == Logits::computed) *overflowed = true;
    return false;
  }
  return true;
}

/// After a row of allowed entries gave no finite logit: the rule's error.
[[noreturn]] inline void throw_no_finite_logit(Index i, Index first_overflow_col, Index T_q, Index T_v,
                                               bool overflowed, bool is_float, const char* where) {
  if (overflowed)
    throw NonFiniteInputError(
        "S", i, first_overflow_col, -std::numeric_limits<double>::infinity(), T_q, T_v, where,
        is_float ? overflow_reason<float>(true) : overflow_reason<double>(true));
  throw FullyMaskedRowError(i, T_q, T_v, where);
}

}  // namespace attn::detail

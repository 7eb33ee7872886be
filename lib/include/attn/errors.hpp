#pragma once
// Typed errors of the attention library. Each message names the matrix, the
// row/column and the shapes involved, so a user can fix the input.

#include <stdexcept>
#include <string>

#include "attn/matrix.hpp"

namespace attn {

/// A shape does not fit the operation, e.g. Q is T_q x d_k but K is
/// T_v x d_k' with d_k != d_k' (Lemma 1, section 32.2.3), or a mask that is
/// not T_q x T_v.
class ShapeError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Every key is forbidden for query row `row()`: the softmax over that row is
/// undefined (Lemma 2 assumes M_i != {1..T_v}; section 32.2.4 says to signal
/// an error). Also raised when T_v = 0 and T_q > 0. `where` is the function
/// the user called ("attention", "multi_head_attention: head 1").
class FullyMaskedRowError : public std::domain_error {
 public:
  /// T_q x T_v: the shape of the logits (and mask) the row belongs to.
  FullyMaskedRowError(Index row, Index T_q, Index T_v, const std::string& where);
  /// The same when the shape is not known (T_q() and T_v() are then -1).
  FullyMaskedRowError(Index row, const std::string& where);
  Index row() const noexcept { return row_; }
  Index T_q() const noexcept { return T_q_; }
  Index T_v() const noexcept { return T_v_; }

 private:
  Index row_;
  Index T_q_ = -1;
  Index T_v_ = -1;
};

/// An input holds NaN or +-Inf (for logits S given as input, NaN or +Inf:
/// -Inf there means "forbidden"), or a logit computed from finite Q and K
/// overflows the scalar type where the softmax needs it (the rule for logits,
/// docs/ARCHITECTURE.md, "lib/"). `matrix()` names the input ("Q", "S",
/// "head 1: K = X W_K"), `row()`/`col()` the entry, `rows()`/`cols()` the
/// matrix's shape (-1 when not known), `value()` the offending value.
class NonFiniteInputError : public std::domain_error {
 public:
  /// `reason` replaces the default "NaN and Inf are not valid inputs" (an
  /// overflow says what overflowed).
  NonFiniteInputError(const std::string& matrix, Index row, Index col, double value, Index rows,
                      Index cols, const std::string& where, const std::string& reason = "");
  /// The same when the shape is not known.
  NonFiniteInputError(const std::string& matrix, Index row, Index col, double value,
                      const std::string& where);
  const std::string& matrix() const noexcept { return matrix_; }
  Index row() const noexcept { return row_; }
  Index col() const noexcept { return col_; }
  Index rows() const noexcept { return rows_; }
  Index cols() const noexcept { return cols_; }
  double value() const noexcept { return value_; }

 private:
  std::string matrix_;
  Index row_;
  Index col_;
  Index rows_ = -1;
  Index cols_ = -1;
  double value_ = 0;
};

/// "T_q x d_k" style text for messages.
std::string shape_text(Index rows, Index cols);

}  // namespace attn

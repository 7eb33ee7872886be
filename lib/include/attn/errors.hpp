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
/// an error). Also raised when T_v = 0 and T_q > 0.
class FullyMaskedRowError : public std::domain_error {
 public:
  FullyMaskedRowError(Index row, const std::string& where);
  Index row() const noexcept { return row_; }

 private:
  Index row_;
};

/// An input holds NaN or +-Inf (or, for logits S, NaN or +Inf; -Inf in S
/// means "forbidden"). `matrix()` names the input, `row()`/`col()` the entry.
class NonFiniteInputError : public std::domain_error {
 public:
  NonFiniteInputError(const std::string& matrix, Index row, Index col, double value,
                      const std::string& where);
  const std::string& matrix() const noexcept { return matrix_; }
  Index row() const noexcept { return row_; }
  Index col() const noexcept { return col_; }

 private:
  std::string matrix_;
  Index row_;
  Index col_;
};

/// "T_q x d_k" style text for messages.
std::string shape_text(Index rows, Index cols);

}  // namespace attn

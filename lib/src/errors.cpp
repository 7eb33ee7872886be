// Typed errors of the attention library.
#include "attn/errors.hpp"

#include <sstream>

namespace attn {
namespace {

std::string fully_masked_message(Index row, Index T_q, Index T_v, const std::string& where) {
  std::ostringstream os;
  os << where << ": every key is forbidden for query row " << row;
  if (T_q >= 0 && T_v >= 0) os << " of the " << shape_text(T_q, T_v) << " logits (T_q x T_v)";
  os << " (its mask row is all true, its given logits are all -inf, or there are no keys)"
     << "; the softmax over that row is undefined (Lemma 2)";
  return os.str();
}

std::string non_finite_message(const std::string& matrix, Index row, Index col, double value,
                               Index rows, Index cols, const std::string& where,
                               const std::string& reason) {
  std::ostringstream os;
  os << where << ": " << matrix << "(" << row << ", " << col << ") is " << value;
  if (rows >= 0 && cols >= 0) os << " (" << matrix << " is " << shape_text(rows, cols) << ")";
  os << "; " << (reason.empty() ? std::string("NaN and Inf are not valid inputs") : reason);
  return os.str();
}

}  // namespace

FullyMaskedRowError::FullyMaskedRowError(Index row, Index T_q, Index T_v, const std::string& where)
    : std::domain_error(fully_masked_message(row, T_q, T_v, where)),
      row_(row),
      T_q_(T_q),
      T_v_(T_v) {}

FullyMaskedRowError::FullyMaskedRowError(Index row, const std::string& where)
    : FullyMaskedRowError(row, -1, -1, where) {}

NonFiniteInputError::NonFiniteInputError(const std::string& matrix, Index row, Index col,
                                         double value, Index rows, Index cols,
                                         const std::string& where, const std::string& reason)
    : std::domain_error(non_finite_message(matrix, row, col, value, rows, cols, where, reason)),
      matrix_(matrix),
      row_(row),
      col_(col),
      rows_(rows),
      cols_(cols),
      value_(value) {}

NonFiniteInputError::NonFiniteInputError(const std::string& matrix, Index row, Index col,
                                         double value, const std::string& where)
    : NonFiniteInputError(matrix, row, col, value, -1, -1, where) {}

std::string shape_text(Index rows, Index cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}

}  // namespace attn

#include "attn/errors.hpp"

#include <sstream>

namespace attn {

namespace {
std::string fully_masked_message(Index row, const std::string& where) {
  std::ostringstream os;
  os << where << ": every key is forbidden for query row " << row
     << " (its mask row is all true, its logits are all -inf, or there are no keys)"
     << "; the softmax over that row is undefined (Lemma 2)";
  return os.str();
}

std::string non_finite_message(const std::string& matrix, Index row, Index col, double value,
                               const std::string& where) {
  std::ostringstream os;
  os << where << ": " << matrix << "(" << row << ", " << col << ") is " << value
     << "; inputs must be finite";
  return os.str();
}
}  // namespace

FullyMaskedRowError::FullyMaskedRowError(Index row, const std::string& where)
    : std::domain_error(fully_masked_message(row, where)), row_(row) {}

NonFiniteInputError::NonFiniteInputError(const std::string& matrix, Index row, Index col,
                                         double value, const std::string& where)
    : std::domain_error(non_finite_message(matrix, row, col, value, where)),
      matrix_(matrix),
      row_(row),
      col_(col) {}

std::string shape_text(Index rows, Index cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}

}  // namespace attn

// Exercise F1 (section 32.2.8): the row-wise softmax, in C++. Skeleton.
//
// Write f1::softmax_rows below (its contract is in softmax_rows.hpp), then
// grade it:
//     attnlab grade skeleton.cpp
// As it stands, the skeleton throws for every case, so it fails the properties.

#include "softmax_rows.hpp"

#include <stdexcept>

namespace f1 {

Matrix softmax_rows(const Matrix& S) {
  (void)S;
  throw std::logic_error("F1: softmax_rows is not written yet");
}

}  // namespace f1

// Defines the F2 function by its qualified name, without `namespace f2 {`.
#include <stdexcept>

#include "masked_softmax.hpp"

f2::Matrix f2::masked_softmax(const Matrix& S, const Mask& mask) {
  (void)mask;
  return S;
}

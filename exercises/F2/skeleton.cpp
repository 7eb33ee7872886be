// Exercise F2 (section 32.2.8): the masked, stable softmax, in C++. Skeleton.
//
// Write f2::masked_softmax below (its contract is in masked_softmax.hpp),
// fill in answers_skeleton.json (save it as answers.json), then grade both:
//     attnlab grade skeleton.cpp --answers answers.json
// As it stands, the skeleton throws for every case, so it fails the properties.

#include "masked_softmax.hpp"

#include <stdexcept>

namespace f2 {

Matrix masked_softmax(const Matrix& S, const Mask& mask) {
  (void)S;
  (void)mask;
  throw std::logic_error("F2: masked_softmax is not written yet");
}

}  // namespace f2

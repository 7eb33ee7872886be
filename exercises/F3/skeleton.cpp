// Exercise F3 (section 32.2.8): masked scaled dot-product attention, in C++.
// Skeleton.
//
// Write f3::attention below (its contract is in attention.hpp), then grade it:
//     attnlab grade skeleton.cpp
// As it stands, the skeleton throws for every case, so it fails the properties.

#include "attention.hpp"

#include <stdexcept>

namespace f3 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  (void)Q;
  (void)K;
  (void)V;
  (void)mask;
  throw std::logic_error("F3: attention is not written yet");
}

}  // namespace f3

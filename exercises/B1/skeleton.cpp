// B1 (see README.md): the backward pass of attention in C++. Skeleton.
//
// Write b1::attention_backward below, then grade the file:
//     attnlab grade skeleton.cpp
// As it stands, it throws for every case, so it fails the properties.
#include <stdexcept>

#include "attention_backward.hpp"

namespace b1 {

Gradients attention_backward(const Matrix& Q, const Matrix& K, const Matrix& V,
                             const Matrix& dO, const std::optional<Mask>& mask, double scale,
                             bool causal) {
  (void)Q, (void)K, (void)V, (void)dO, (void)mask, (void)scale, (void)causal;
  throw std::logic_error("B1: attention_backward is not written yet");
}

}  // namespace b1

// M1 (see README.md): multi-head self-attention in C++. Skeleton.
//
// Write m1::multi_head_attention below, then grade it:
//     attnlab grade skeleton.cpp
// As it stands, it throws for every case, so it fails the properties.
#include <stdexcept>

#include "multi_head_attention.hpp"

namespace m1 {

Matrix multi_head_attention(const Matrix& X, const std::vector<HeadWeights>& heads,
                            const Matrix& W_O, const std::optional<Mask>& mask) {
  (void)X;
  (void)heads;
  (void)W_O;
  (void)mask;
  throw std::logic_error("M1: multi_head_attention is not written yet");
}

}  // namespace m1

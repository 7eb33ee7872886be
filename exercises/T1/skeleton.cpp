// T1 (see README.md): tiled attention with an online softmax, in C++. Skeleton.
//
// Write t1::attention_tiled and t1::attention below, then grade the file:
//     attnlab grade skeleton.cpp
// As it stands, both throw for every case, so it fails the properties.
#include <stdexcept>

#include "attention_tiled.hpp"

namespace t1 {

TiledResult attention_tiled(const Matrix& Q, const Matrix& K, const Matrix& V,
                            const std::optional<Mask>& mask, Eigen::Index tile_q,
                            Eigen::Index tile_k) {
  (void)Q, (void)K, (void)V, (void)mask, (void)tile_q, (void)tile_k;
  throw std::logic_error("T1: attention_tiled is not written yet");
}

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  (void)Q, (void)K, (void)V, (void)mask;
  throw std::logic_error("T1: attention is not written yet");
}

}  // namespace t1

// C1 (see README.md): the causal and padding masks in C++. Skeleton.
//
// Write c1::causal_mask and c1::padding_mask below, then grade the file:
//     attnlab grade skeleton.cpp
// As it stands, both throw for every case, so it fails the properties.
#include <stdexcept>

#include "masks.hpp"

namespace c1 {

Mask causal_mask(Eigen::Index T_q, Eigen::Index T_v, Alignment alignment) {
  (void)T_q;
  (void)T_v;
  (void)alignment;
  throw std::logic_error("C1: causal_mask is not written yet");
}

Mask padding_mask(Eigen::Index T_q, Eigen::Index T_v, Eigen::Index key_length) {
  (void)T_q;
  (void)T_v;
  (void)key_length;
  throw std::logic_error("C1: padding_mask is not written yet");
}

}  // namespace c1

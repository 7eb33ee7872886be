// Model solution of C1 (exercises/C1/README.md) in C++: the causal and
// padding masks of section 32.2.4, true = forbidden.
//
// Grade it with: attnlab grade solutions/C1/masks.cpp
#include <stdexcept>

#include "masks.hpp"

namespace c1 {

Mask causal_mask(Eigen::Index T_q, Eigen::Index T_v, Alignment alignment) {
  if (T_q < 0 || T_v < 0) throw std::invalid_argument("sizes must be >= 0");
  // Key j is forbidden for query i when j > i + offset.
  const Eigen::Index offset = alignment == Alignment::bottom_right ? T_v - T_q : 0;
  Mask M(T_q, T_v);
  for (Eigen::Index i = 0; i < T_q; ++i)
    for (Eigen::Index j = 0; j < T_v; ++j) M(i, j) = j > i + offset;
  return M;
}

Mask padding_mask(Eigen::Index T_q, Eigen::Index T_v, Eigen::Index key_length) {
  if (T_q < 0 || key_length < 0 || key_length > T_v)
    throw std::invalid_argument("need 0 <= key_length <= T_v");
  Mask M(T_q, T_v);
  for (Eigen::Index i = 0; i < T_q; ++i)
    for (Eigen::Index j = 0; j < T_v; ++j) M(i, j) = j >= key_length;
  return M;
}

}  // namespace c1

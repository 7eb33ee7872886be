// mutant: diagonal_forbidden_cpp
// exercise: C1
// misconception: in C++, the causal mask is written with j >= i, so a query may not attend to its own key and the first query has no key left.
// violates: the causal mask of section 32.2.4 (only the keys after query i are forbidden)
// caught by: causal_mask_matches_definition
// key: diagonal_forbidden
#include "masks.hpp"

namespace c1 {

Mask causal_mask(Eigen::Index T_q, Eigen::Index T_v, Alignment alignment) {
  const Eigen::Index offset = alignment == Alignment::bottom_right ? T_v - T_q : 0;
  Mask M(T_q, T_v);
  for (Eigen::Index i = 0; i < T_q; ++i)
    for (Eigen::Index j = 0; j < T_v; ++j) M(i, j) = j >= i + offset;  // BUG: >= instead of >
  return M;
}

Mask padding_mask(Eigen::Index T_q, Eigen::Index T_v, Eigen::Index key_length) {
  Mask M(T_q, T_v);
  for (Eigen::Index i = 0; i < T_q; ++i)
    for (Eigen::Index j = 0; j < T_v; ++j) M(i, j) = j >= key_length;
  return M;
}

}  // namespace c1

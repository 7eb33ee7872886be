// Masks of a small C++ decoder: each query and key gets an absolute
// position in the sequence (queries sit at the end of a KV cache when the
// alignment is bottom-right), and the causal rule is written on positions.
// The comparison is the wrong way round: keys *before* the query position
// are blocked, so a query sees itself and the future instead of itself and
// the past.
// Expected: triangle_reversed, or no key.
#include "masks.hpp"

#include <stdexcept>

namespace c1 {

Mask causal_mask(Eigen::Index T_q, Eigen::Index T_v, Alignment alignment) {
  if (T_q < 1 || T_v < 1) throw std::invalid_argument("empty mask");
  const Eigen::Index first_query_pos = alignment == Alignment::bottom_right ? T_v - T_q : 0;
  Mask m(T_q, T_v);
  for (Eigen::Index i = 0; i < T_q; ++i) {
    const Eigen::Index q_pos = first_query_pos + i;
    for (Eigen::Index j = 0; j < T_v; ++j) {
      const Eigen::Index k_pos = j;
      m(i, j) = k_pos < q_pos;  // blocked
    }
  }
  return m;
}

Mask padding_mask(Eigen::Index T_q, Eigen::Index T_v, Eigen::Index key_length) {
  if (key_length < 0 || key_length > T_v) throw std::invalid_argument("key_length out of range");
  Mask m(T_q, T_v);
  for (Eigen::Index i = 0; i < T_q; ++i)
    for (Eigen::Index j = 0; j < T_v; ++j) m(i, j) = j >= key_length;
  return m;
}

}  // namespace c1

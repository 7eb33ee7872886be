// Masks in the style of llm.c-like C code: plain index loops, the causal mask
// right for both alignments. The padding test means "past the last real
// key" but compares with the length instead of the last index
// (key_length - 1): a key is padding when j > key_length, which leaves the
// first padding key (j == key_length) visible.
// Expected: padding_off_by_one, or no key.
#include "masks.hpp"

#include <stdexcept>

namespace c1 {

Mask causal_mask(Eigen::Index T_q, Eigen::Index T_v, Alignment alignment) {
  const int Tq = int(T_q), Tv = int(T_v);
  const int off = alignment == Alignment::bottom_right ? Tv - Tq : 0;
  Mask out(T_q, T_v);
  for (int t = 0; t < Tq; t++) {
    for (int t2 = 0; t2 < Tv; t2++) {
      out(t, t2) = t2 > t + off;
    }
  }
  return out;
}

Mask padding_mask(Eigen::Index T_q, Eigen::Index T_v, Eigen::Index key_length) {
  const int Tq = int(T_q), Tv = int(T_v), len = int(key_length);
  if (len < 0 || len > Tv) throw std::invalid_argument("bad key_length");
  Mask out(T_q, T_v);
  for (int t = 0; t < Tq; t++) {
    for (int t2 = 0; t2 < Tv; t2++) {
      out(t, t2) = t2 > len;
    }
  }
  return out;
}

}  // namespace c1

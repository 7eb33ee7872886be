// Masks from a C++ decoding loop with a KV cache: the T_q new tokens are the
// last T_q positions of the T_v cached ones, so the causal rule is written
// once, shifted by the cache length, key j blocked when
// j > i + (T_v - T_q). The alignment argument is there for the API, but the
// decoder's rule is used whatever it says: a top-left mask with T_q != T_v
// comes out bottom-right.
// Expected: causal_alignment, or no key.
#include "masks.hpp"

#include <stdexcept>

namespace c1 {

Mask causal_mask(Eigen::Index T_q, Eigen::Index T_v, Alignment /*alignment*/) {
  const Eigen::Index cache_len = T_v - T_q;  // tokens already in the cache
  Mask blocked(T_q, T_v);
  for (Eigen::Index i = 0; i < T_q; ++i)
    for (Eigen::Index j = 0; j < T_v; ++j) blocked(i, j) = j > i + cache_len;
  return blocked;
}

Mask padding_mask(Eigen::Index T_q, Eigen::Index T_v, Eigen::Index key_length) {
  if (key_length < 0 || key_length > T_v) throw std::out_of_range("key_length");
  Mask blocked = Mask::Constant(T_q, T_v, false);
  if (key_length < T_v) blocked.rightCols(T_v - key_length).setConstant(true);
  return blocked;
}

}  // namespace c1

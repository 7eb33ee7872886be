#pragma once
// Random inputs shared by the library's tests (lib/tests/).
#include <random>

#include "attn/matrix.hpp"

namespace attn::test {

/// rows x cols, entries uniform in [lo, hi), drawn in row-major order.
template <class T>
Matrix<T> uniform(Index rows, Index cols, std::mt19937_64& rng, double lo = -1, double hi = 1) {
  std::uniform_real_distribution<double> dist(lo, hi);
  Matrix<T> M(rows, cols);
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < cols; ++j) M(i, j) = static_cast<T>(dist(rng));
  return M;
}

/// A T_q x T_v mask (T_v >= 1) forbidding each entry with probability p,
/// except key i % T_v for query i: no row is fully forbidden.
inline Mask random_mask(Index T_q, Index T_v, std::mt19937_64& rng, double p = 0.5) {
  std::bernoulli_distribution forbid(p);
  Mask M(T_q, T_v);
  for (Index i = 0; i < T_q; ++i) {
    for (Index j = 0; j < T_v; ++j) M(i, j) = forbid(rng);
    M(i, i % T_v) = false;
  }
  return M;
}

}  // namespace attn::test

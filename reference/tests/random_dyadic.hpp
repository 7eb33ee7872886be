#pragma once
// Random exact inputs shared by the backward pass's tests (reference/tests/).
#include <cmath>
#include <random>

#include "attn/ref/number_format.hpp"
#include "attn/ref/oracle.hpp"

namespace attn::ref::test {

/// rows x cols, multiples of 2^-8 in [-2, 2] (x +- 2^-12 and x +- 2^-13 are
/// exact in double), rounded to the format f (a no-op for float64 and float32).
inline DMatrix dyadic(std::ptrdiff_t rows, std::ptrdiff_t cols, std::mt19937_64& rng,
                      NumberFormat f = NumberFormat::float64) {
  std::uniform_int_distribution<int> dist(-512, 512);
  DMatrix M(rows, cols);
  for (std::ptrdiff_t i = 0; i < rows; ++i)
    for (std::ptrdiff_t j = 0; j < cols; ++j)
      M(i, j) = round_to_format(f, std::ldexp(double(dist(rng)), -8));
  return M;
}

}  // namespace attn::ref::test

#pragma once
// The GEMM ceiling of the benchmark: the two matrix products attention does
// (S = Q K^T, O = S V, 4 T_q T_v d flops for d_k = d_v = d), without the
// softmax, on the same OpenMP threads over blocks of query rows, each with
// Eigen's GEMM, for the same instruction set as attention_tiled's kernel.
// ceiling.cpp is compiled once per instruction set, with Eigen renamed like
// the kernel (lib/src/tiled/kernel.hpp): raw pointers only.
#include <cstddef>

namespace attn::bench {

#define ATTN_CEILING_DECLARE(isa)                                                             \
  void ceiling_##isa(const float* Q, const float* K, const float* V, float* O, std::ptrdiff_t T_q, \
                     std::ptrdiff_t T_v, std::ptrdiff_t d, std::ptrdiff_t block, int threads);     \
  void ceiling_##isa(const double* Q, const double* K, const double* V, double* O,               \
                     std::ptrdiff_t T_q, std::ptrdiff_t T_v, std::ptrdiff_t d, std::ptrdiff_t block, \
                     int threads);
ATTN_CEILING_DECLARE(baseline)
ATTN_CEILING_DECLARE(avx2)
ATTN_CEILING_DECLARE(avx512)
#undef ATTN_CEILING_DECLARE

}  // namespace attn::bench

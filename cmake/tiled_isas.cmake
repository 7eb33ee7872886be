# The instruction sets attention_tiled's kernel (lib/src/tiled/) is compiled
# for, and their flags; the benchmark's GEMM ceiling (bench/) uses the same.
set(ATTNLAB_TILED_ISAS baseline)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  list(APPEND ATTNLAB_TILED_ISAS avx2 avx512)
endif()
set(ATTNLAB_ISA_FLAGS_baseline "")
set(ATTNLAB_ISA_FLAGS_avx2 -mavx2 -mfma)
# -Wno-maybe-uninitialized: GCC 12 warns about 500 times inside Eigen 3.4's
# AVX-512 packet transposes (gemm_pack_lhs -> ptranspose -> _mm512_unpacklo_pd
# on registers it reads as undefined); nothing of ours, and it buried the
# build's own messages.
set(ATTNLAB_ISA_FLAGS_avx512
  -mavx2 -mfma -mavx512f -mavx512dq -mavx512vl -mavx512bw -mprefer-vector-width=512
  -Wno-maybe-uninitialized)

# The instruction sets attention_tiled's kernel (lib/src/tiled/) is compiled
# for, and their flags; the benchmark's GEMM ceiling (bench/) uses the same.
set(ATTNLAB_TILED_ISAS baseline)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  list(APPEND ATTNLAB_TILED_ISAS avx2 avx512)
endif()
set(ATTNLAB_ISA_FLAGS_baseline "")
set(ATTNLAB_ISA_FLAGS_avx2 -mavx2 -mfma)
set(ATTNLAB_ISA_FLAGS_avx512
  -mavx2 -mfma -mavx512f -mavx512dq -mavx512vl -mavx512bw -mprefer-vector-width=512)

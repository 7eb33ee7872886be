// Picks the tiled kernel for the CPU it runs on (kernel.hpp).
#include <cstdlib>
#include <cstring>

#include "kernel.hpp"

namespace attn::detail::tiled {

bool has_kernel(Isa isa) {
  switch (isa) {
    case Isa::baseline:
      return true;
    case Isa::avx2:
#if defined(ATTNLAB_TILED_HAVE_AVX2)
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
      return false;
#endif
    case Isa::avx512:
#if defined(ATTNLAB_TILED_HAVE_AVX512)
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
             __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
#else
      return false;
#endif
  }
  return false;
}

namespace {

/// The widest kernel this CPU runs, lowered (never raised) by the
/// environment variable ATTNLAB_TILED_ISA = baseline | avx2 | avx512.
Isa choose() {
  Isa best = has_kernel(Isa::avx512) ? Isa::avx512 : has_kernel(Isa::avx2) ? Isa::avx2 : Isa::baseline;
  if (const char* env = std::getenv("ATTNLAB_TILED_ISA")) {
    Isa wanted = best;
    if (std::strcmp(env, "baseline") == 0) wanted = Isa::baseline;
    if (std::strcmp(env, "avx2") == 0) wanted = Isa::avx2;
    if (static_cast<int>(wanted) < static_cast<int>(best) && has_kernel(wanted)) best = wanted;
  }
  return best;
}

template <class T>
Status dispatch(const Problem<T>& p) {
  static const Isa isa = choose();
  switch (isa) {
#if defined(ATTNLAB_TILED_HAVE_AVX512)
    case Isa::avx512:
      return run_avx512(p);
#endif
#if defined(ATTNLAB_TILED_HAVE_AVX2)
    case Isa::avx2:
      return run_avx2(p);
#endif
    default:
      return run_baseline(p);
  }
}

}  // namespace

Status run(const Problem<float>& p) { return dispatch(p); }
Status run(const Problem<double>& p) { return dispatch(p); }
const char* isa_name() {
  static const char* names[] = {"baseline", "avx2", "avx512"};
  return names[static_cast<int>(choose())];
}

}  // namespace attn::detail::tiled

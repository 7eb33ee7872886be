#pragma once
// The interface between attention_tiled (lib/src/attention_tiled.cpp) and its
// compute kernel (kernel.cpp). Private to lib/.
//
// kernel.cpp is compiled once per instruction set (baseline x86-64, AVX2+FMA,
// AVX-512) and the caller picks one at run time. Each of those translation
// units renames Eigen's namespace (-DEigen=attn_eigen_<isa>), so that no
// Eigen template instantiated with wide vectors can be merged by the linker
// with the same template instantiated elsewhere for the baseline: that is why
// this interface has raw pointers only and no Eigen type.
#include <cstddef>

namespace attn::detail::tiled {

using index_t = std::ptrdiff_t;  // = Eigen::Index

/// One call of the tiled kernel. Every matrix is dense and row-major.
template <class T>
struct Problem {
  const T* Q;        // T_q x d_k
  const T* K;        // T_v x d_k
  const T* V;        // T_v x d_v
  const bool* mask;  // T_q x T_v, true = forbidden; nullptr = no mask
  index_t T_q, T_v, d_k, d_v;
  index_t tile_q, tile_k;  // >= 1
  T scale;                 // the logits are scale Q K^T (finite)
  int threads;             // >= 1
  bool skip_forbidden_tiles;  // skip key tiles the mask forbids wholly (a no-op on the result)
  // Scan every allowed logit for NaN/+Inf (needed only if one can overflow).
  // attention_tiled has already applied the rule for logits row by row then;
  // this catches a tile product that rounds past the largest finite value
  // where the row's dot product did not.
  bool check_logits;
  T* O;                       // out: T_q x d_v
  T* logsumexp;               // out: T_q
};

/// What went wrong, if anything: a NaN/+Inf logit before a fully forbidden
/// row, each the lowest row's (kernel.cpp, `before`), whatever the threads.
struct Status {
  enum Kind { ok = 0, non_finite_logit = 1, fully_masked_row = 2 };
  Kind kind = ok;
  index_t row = 0, col = 0;
  double value = 0;  // the logit, for non_finite_logit
};

/// The instruction sets a kernel is built for.
enum class Isa { baseline = 0, avx2 = 1, avx512 = 2 };

#define ATTN_TILED_DECLARE(isa)                             \
  Status run_##isa(const Problem<float>& p);                \
  Status run_##isa(const Problem<double>& p);
ATTN_TILED_DECLARE(baseline)
ATTN_TILED_DECLARE(avx2)
ATTN_TILED_DECLARE(avx512)
#undef ATTN_TILED_DECLARE

/// Whether the kernel for isa is compiled in (CMake decides) and this CPU runs it.
bool has_kernel(Isa isa);

/// The widest kernel available (dispatch.cpp); ATTNLAB_TILED_ISA=baseline or
/// avx2 in the environment lowers the choice (for tests), read once.
Status run(const Problem<float>& p);
Status run(const Problem<double>& p);

/// The name of the kernel run() uses: "baseline", "avx2" or "avx512".
const char* isa_name();

}  // namespace attn::detail::tiled

// Benchmarks of attn::attention (naive) and attn::attention_tiled against a
// GEMM ceiling of the same flop count, float and double, T in {256, 1024,
// 4096, 16384}, d in {64, 128}, unmasked and causal (PERFORMANCE.md); and of
// the tiled backward pass attn::attention_backward_tiled for T <= 4096, its
// flops counted as 2.5 times the forward's (five products of T x T x d
// against two; FlashAttention-2, arXiv:2307.08691, section 4.1).
//
// Counters: GFLOPs = useful flops / second, with 4 T_q T_v d flops unmasked
// and 4 d (allowed pairs) under a causal mask (the tiled kernel skips the
// wholly forbidden key tiles); peak_MiB = the most heap live during one call
// above what was live before it (heap_meter.hpp), outputs included. The naive
// form is skipped where its two T x T buffers (S and A) would exceed
// --naive_cap_mib (default 1024); its memory is then reported as the size of
// those buffers (counter peak_MiB_documented). A summary of ratios goes to
// stderr at the end, so that --benchmark_format=json stays parseable; with
// --benchmark_repetitions=N it uses the median of the N.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <tuple>

#include "attn/attn.hpp"
#include "ceiling.hpp"
#include "heap_meter.hpp"

namespace {

using attn::Index;

double naive_cap_mib = 1024;

struct Key {
  std::string type;
  Index T, d;
  bool causal;
  std::string impl;
  bool operator<(const Key& o) const {
    return std::tie(type, T, d, causal, impl) < std::tie(o.type, o.T, o.d, o.causal, o.impl);
  }
};
struct Figure {
  double seconds = 0, gflops = 0, peak_mib = 0;
};
std::map<Key, Figure> figures;

template <class T>
attn::Matrix<T> random_matrix(Index rows, Index cols, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  attn::Matrix<T> M(rows, cols);
  for (Index i = 0; i < M.size(); ++i) M.data()[i] = static_cast<T>(dist(rng));
  return M;
}

double useful_flops(Index T, Index d, bool causal) {
  const double pairs = causal ? double(T) * double(T + 1) / 2 : double(T) * double(T);
  return 4.0 * d * pairs;
}

template <class T>
const char* type_name() {
  return sizeof(T) == 4 ? "float" : "double";
}

template <class T>
void ceiling(const T* Q, const T* K, const T* V, T* O, Index n, Index d, int threads) {
  const std::string isa = attn::attention_tiled_kernel();
  const Index block = 128;
#if defined(ATTNLAB_BENCH_HAVE_AVX512)
  if (isa == "avx512") return attn::bench::ceiling_avx512(Q, K, V, O, n, n, d, block, threads);
#endif
#if defined(ATTNLAB_BENCH_HAVE_AVX2)
  if (isa == "avx2") return attn::bench::ceiling_avx2(Q, K, V, O, n, n, d, block, threads);
#endif
  attn::bench::ceiling_baseline(Q, K, V, O, n, n, d, block, threads);
}

const char* impl_name(int impl) {
  static const char* names[] = {"naive", "tiled", "gemm", "backward", "gemm_backward"};
  return names[impl];
}

/// The backward's ceiling: the five products of FlashAttention-2's Algorithm 2
/// on the library's default tiles (key tiles outside, query tiles inside),
/// S_ij = Q_i K_j^T, dP_ij = dO_i V_j^T, dV_j += S_ij^T dO_i, dQ_i += dP_ij K_j,
/// dK_j += dP_ij^T Q_i, without the exponentials, the mask or D: 10 T^2 d flops
/// (2.5 times the forward's 4 T^2 d), Eigen's GEMM compiled as the library is
/// (the baseline instruction set), one thread like the backward.
template <class T>
void backward_ceiling(const attn::Matrix<T>& Q, const attn::Matrix<T>& K,
                      const attn::Matrix<T>& V, const attn::Matrix<T>& dO,
                      attn::Matrix<T>& dQ, attn::Matrix<T>& dK, attn::Matrix<T>& dV) {
  const attn::TileSizes tiles;
  const Index n = Q.rows();
  dQ.setZero(Q.rows(), Q.cols());
  dK.setZero(K.rows(), K.cols());
  dV.setZero(V.rows(), V.cols());
  attn::Matrix<T> S, dP;
  for (Index k0 = 0; k0 < n; k0 += tiles.key) {
    const Index nk = std::min(tiles.key, n - k0);
    for (Index q0 = 0; q0 < n; q0 += tiles.query) {
      const Index nq = std::min(tiles.query, n - q0);
      S.resize(nq, nk);
      dP.resize(nq, nk);
      S.noalias() = Q.middleRows(q0, nq) * K.middleRows(k0, nk).transpose();
      dP.noalias() = dO.middleRows(q0, nq) * V.middleRows(k0, nk).transpose();
      dV.middleRows(k0, nk).noalias() += S.transpose() * dO.middleRows(q0, nq);
      dQ.middleRows(q0, nq).noalias() += dP * K.middleRows(k0, nk);
      dK.middleRows(k0, nk).noalias() += dP.transpose() * Q.middleRows(q0, nq);
    }
  }
}

/// impl: 0 naive, 1 tiled, 2 GEMM ceiling, 3 tiled backward (given the
/// forward's O and logsumexp, computed before the timed loop), 4 the
/// backward's GEMM ceiling (backward_ceiling, one thread).
template <class T>
void BM_attention(benchmark::State& state, int impl, Index n, Index d, bool causal) {
  const int threads = omp_get_max_threads();
  const double naive_mib = 2.0 * double(n) * double(n) * sizeof(T) / (1 << 20);
  if (impl == 0 && naive_mib > naive_cap_mib) {
    state.SkipWithError(("naive skipped: S and A need " + std::to_string(int(naive_mib)) +
                         " MiB > cap").c_str());
    figures[{type_name<T>(), n, d, causal, "naive"}] = {0, 0, naive_mib};
    return;
  }
  const auto Q = random_matrix<T>(n, d, 1), K = random_matrix<T>(n, d, 2),
             V = random_matrix<T>(n, d, 3);
  std::optional<attn::Mask> mask;
  if (causal) mask = attn::causal_mask(n, n);
  attn::Matrix<T> O_ceiling(n, d);
  const auto dO = random_matrix<T>(n, d, 4);
  attn::TiledAttentionResult<T> fwd;
  attn::Matrix<T> dQ_ceiling, dK_ceiling, dV_ceiling;
  if (impl == 3) fwd = attn::attention_tiled<T>(Q, K, V, mask);
  double peak = 0;
  for (auto _ : state) {
    attn::bench::heap_reset_peak();
    const std::size_t before = attn::bench::heap_live();
    if (impl == 0) {
      auto r = attn::attention<T>(Q, K, V, mask);
      benchmark::DoNotOptimize(r.O.data());
    } else if (impl == 1) {
      auto r = attn::attention_tiled<T>(Q, K, V, mask);
      benchmark::DoNotOptimize(r.O.data());
    } else if (impl == 3) {
      auto g = attn::attention_backward_tiled<T>(Q, K, V, fwd.O, fwd.logsumexp, dO, mask);
      benchmark::DoNotOptimize(g.dQ.data());
    } else if (impl == 4) {
      backward_ceiling<T>(Q, K, V, dO, dQ_ceiling, dK_ceiling, dV_ceiling);
      benchmark::DoNotOptimize(dQ_ceiling.data());
    } else {
      ceiling<T>(Q.data(), K.data(), V.data(), O_ceiling.data(), n, d, threads);
      benchmark::DoNotOptimize(O_ceiling.data());
    }
    peak = double(attn::bench::heap_peak() - before) / (1 << 20);
  }
  const double flops = impl == 2   ? useful_flops(n, d, false)
                       : impl == 3 ? 2.5 * useful_flops(n, d, causal)
                       : impl == 4 ? 2.5 * useful_flops(n, d, false)
                                   : useful_flops(n, d, causal);
  state.counters["GFLOPs"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak_MiB"] = peak;
  state.counters["threads"] = impl == 0 || impl >= 3 ? 1 : threads;
  if (impl == 0) state.counters["peak_MiB_documented"] = naive_mib;
  state.SetLabel(impl == 1 ? std::string("kernel ") + attn::attention_tiled_kernel() : "");
  // Figures for the summary: the benchmark library reports the mean over iterations.
  Figure f;
  f.peak_mib = peak;
  figures[{type_name<T>(), n, d, causal, impl_name(impl)}] = f;
}

/// Records the time per iteration of every finished run, for the summary.
class SummaryReporter : public benchmark::BenchmarkReporter {
 public:
  explicit SummaryReporter(benchmark::BenchmarkReporter* inner) : inner_(inner) {}
  bool ReportContext(const Context& c) override { return inner_->ReportContext(c); }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.error_occurred) continue;
      // With --benchmark_repetitions, the median wins (it is reported after the runs).
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name != "median") continue;
      for (auto& [key, fig] : figures)
        if (r.benchmark_name().rfind(name_of(key) + "/", 0) == 0) {
          fig.seconds = r.GetAdjustedRealTime() / 1e9;  // unit: ns (default)
          const auto g = r.counters.find("GFLOPs");
          if (g != r.counters.end()) fig.gflops = g->second;
        }
    }
    inner_->ReportRuns(runs);
  }
  void Finalize() override { inner_->Finalize(); }
  static std::string name_of(const Key& k) {
    return "attention/" + k.impl + "/" + k.type + "/T:" + std::to_string(k.T) +
           "/d:" + std::to_string(k.d) + (k.causal ? "/causal" : "/unmasked");
    // (the library appends /process_time/real_time)
  }

 private:
  benchmark::BenchmarkReporter* inner_;
};

template <class T>
void register_all() {
  for (Index n : {256, 1024, 4096, 16384})
    for (Index d : {64, 128})
      for (bool causal : {false, true})
        for (int impl : {0, 1, 2, 3, 4}) {
          if ((impl == 2 || impl == 4) && causal) continue;  // the ceilings are unmasked
          if (impl >= 3 && n > 4096) continue;  // one thread: minutes per call beyond
          const Key key{type_name<T>(), n, d, causal, impl_name(impl)};
          figures[key] = {};
          benchmark::RegisterBenchmark(SummaryReporter::name_of(key).c_str(), BM_attention<T>, impl,
                                       n, d, causal)
              ->UseRealTime()
              ->MeasureProcessCPUTime();
        }
}

void print_summary() {
  std::fprintf(stderr,
               "\nsummary (kernel %s, %d threads): tiled/GEMM GFLOP/s ratio; causal/unmasked "
               "time; tiled/naive peak memory\n",
               attn::attention_tiled_kernel(), omp_get_max_threads());
  std::fprintf(stderr, "%-6s %6s %4s %12s %12s %12s %10s %10s %10s\n", "type", "T", "d",
               "tiled GF/s", "GEMM GF/s", "tiled/GEMM", "causal/un", "tiled MiB", "tiled/naive");
  for (const char* type : {"float", "double"})
    for (Index n : {256, 1024, 4096, 16384})
      for (Index d : {64, 128}) {
        const Figure t = figures[{type, n, d, false, "tiled"}];
        const Figure tc = figures[{type, n, d, true, "tiled"}];
        const Figure g = figures[{type, n, d, false, "gemm"}];
        const Figure nv = figures[{type, n, d, false, "naive"}];
        if (t.seconds == 0) continue;
        std::fprintf(stderr, "%-6s %6ld %4ld %12.1f %12.1f %12.2f %10.2f %10.2f %10.4f\n", type,
                     long(n), long(d), t.gflops, g.gflops, g.gflops > 0 ? t.gflops / g.gflops : 0,
                     tc.seconds > 0 ? tc.seconds / t.seconds : 0, t.peak_mib,
                     nv.peak_mib > 0 ? t.peak_mib / nv.peak_mib : 0);
      }
  std::fprintf(stderr, "\nbackward (attention_backward_tiled, one thread; flops 2.5x the "
                       "forward's): its GFLOP/s over the same-run ceilings': the backward's "
                       "five products (one thread, bwd GEMM) and the forward's (%d threads)\n",
               omp_get_max_threads());
  std::fprintf(stderr, "%-6s %6s %4s %12s %12s %12s %12s %12s %12s\n", "type", "T", "d",
               "bwd GF/s", "bwd GEMM", "bwd/bwdGEMM", "GEMM GF/s", "bwd/GEMM", "causal GF/s");
  for (const char* type : {"float", "double"})
    for (Index n : {256, 1024, 4096})
      for (Index d : {64, 128}) {
        const Figure b = figures[{type, n, d, false, "backward"}];
        const Figure bc = figures[{type, n, d, true, "backward"}];
        const Figure g = figures[{type, n, d, false, "gemm"}];
        const Figure bg = figures[{type, n, d, false, "gemm_backward"}];
        if (b.seconds == 0) continue;
        std::fprintf(stderr, "%-6s %6ld %4ld %12.1f %12.1f %12.2f %12.1f %12.2f %12.1f\n", type,
                     long(n), long(d), b.gflops, bg.gflops, bg.gflops > 0 ? b.gflops / bg.gflops : 0,
                     g.gflops, g.gflops > 0 ? b.gflops / g.gflops : 0, bc.gflops);
      }
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--naive_cap_mib=", 16) == 0) naive_cap_mib = std::atof(argv[i] + 16);
  register_all<float>();
  register_all<double>();
  benchmark::Initialize(&argc, argv);
  benchmark::BenchmarkReporter* display = benchmark::CreateDefaultDisplayReporter();
  SummaryReporter reporter(display);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  print_summary();
  benchmark::Shutdown();
  return 0;
}

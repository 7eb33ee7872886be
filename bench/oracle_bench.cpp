// attnlab_oracle_bench: the cost of one oracle comparison, the grader's
// per-case overhead (PERFORMANCE.md, "The grader's own costs"): the 50-digit
// exact attention (attn::ref::exact_attention) and the a-priori error bound
// (attn::ref::attention_error_bound) for a T x T case with d_k = d_v = d,
// at the sizes the generators draw (most cases are at most 8 x 8).
#include <benchmark/benchmark.h>

#include <random>

#include "attn/ref/error_bound.hpp"
#include "attn/ref/oracle.hpp"

namespace {

void BM_oracle_case(benchmark::State& state) {
  const Eigen::Index T = state.range(0), d = state.range(1);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> unit(-2.0, 2.0);
  auto random = [&](Eigen::Index r, Eigen::Index c) {
    attn::ref::DMatrix M(r, c);
    for (Eigen::Index i = 0; i < M.size(); ++i) M.data()[i] = unit(rng);
    return M;
  };
  const attn::ref::DMatrix Q = random(T, d), K = random(T, d), V = random(T, d);
  attn::ref::BoolMatrix mask(T, T);
  for (Eigen::Index i = 0; i < T; ++i)
    for (Eigen::Index j = 0; j < T; ++j) mask(i, j) = j > i;  // causal: no row is empty
  for (auto _ : state) {
    const attn::ref::ExactAttention exact = attn::ref::exact_attention(Q, K, V, mask);
    const attn::ref::AttentionBound bound =
        attn::ref::attention_error_bound(Q, K, V, exact, attn::ref::PrecisionModel::for_double());
    benchmark::DoNotOptimize(bound.O.data());
  }
  state.counters["T"] = double(T);
  state.counters["d"] = double(d);
}

BENCHMARK(BM_oracle_case)
    ->ArgNames({"T", "d"})
    ->Args({1, 1})
    ->Args({4, 4})
    ->Args({8, 8})
    ->Args({16, 16})
    ->Args({32, 32})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();

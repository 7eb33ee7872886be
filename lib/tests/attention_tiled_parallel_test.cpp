// The fast paths of attention_tiled (lib/src/tiled/): the result does not
// depend on the thread count, skipping wholly forbidden key tiles changes
// nothing, forbidden keys get exactly zero weight through the vectorised
// exp, tiles that do not divide T, and the kernel choice for the CPU.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "attn/attn.hpp"
#include "random_inputs.hpp"

using attn::Index;
using attn::Mask;
using attn::test::random_mask;
using attn::test::uniform;

namespace {

template <class T>
bool bit_identical(const attn::TiledAttentionResult<T>& a, const attn::TiledAttentionResult<T>& b) {
  if (a.O.rows() != b.O.rows() || a.O.cols() != b.O.cols() ||
      a.logsumexp.size() != b.logsumexp.size())
    return false;
  return std::memcmp(a.O.data(), b.O.data(), sizeof(T) * std::size_t(a.O.size())) == 0 &&
         std::memcmp(a.logsumexp.data(), b.logsumexp.data(),
                     sizeof(T) * std::size_t(a.logsumexp.size())) == 0;
}

/// |O_tiled - O_naive| <= 4 (3 T_v + d_k + 4) u max|V| (see attention_tiled_test.cpp).
template <class T>
T o_tolerance(Index T_v, Index d_k, const attn::Matrix<T>& V) {
  const T u = std::numeric_limits<T>::epsilon() / 2;
  return T(4) * T(3 * T_v + d_k + 4) * u * V.cwiseAbs().maxCoeff();
}

}  // namespace

TEMPLATE_TEST_CASE("tiled: threads = 1, 2, 3, all give bit-identical results", "[tiled][threads]",
                   float, double) {
  using T = TestType;
  std::mt19937_64 rng(20261201);
  const Index T_q = 301, T_v = 277, d_k = 24, d_v = 9;
  const auto Q = uniform<T>(T_q, d_k, rng, -2, 2);
  const auto K = uniform<T>(T_v, d_k, rng, -2, 2);
  const auto V = uniform<T>(T_v, d_v, rng, -3, 3);
  const std::optional<Mask> masks[] = {std::nullopt, attn::causal_mask(T_q, T_v),
                                       random_mask(T_q, T_v, rng)};
  for (const auto& mask : masks) {
    attn::TileSizes one{.query = 32, .key = 48, .threads = 1};
    const auto ref = attn::attention_tiled<T>(Q, K, V, mask, one);
    for (int threads : {2, 3, 0}) {
      INFO("threads " << threads << ", mask " << (mask ? "yes" : "no"));
      attn::TileSizes many = one;
      many.threads = threads;
      CHECK(bit_identical(ref, attn::attention_tiled<T>(Q, K, V, mask, many)));
    }
  }
}

TEMPLATE_TEST_CASE("tiled: skipping wholly forbidden key tiles gives the same result",
                   "[tiled][skip]", float, double) {
  using T = TestType;
  std::mt19937_64 rng(7);
  const Index T_q = 200, T_v = 200, d_k = 16, d_v = 5;
  const auto Q = uniform<T>(T_q, d_k, rng, -3, 3);
  const auto K = uniform<T>(T_v, d_k, rng, -3, 3);
  const auto V = uniform<T>(T_v, d_v, rng, -1, 1);
  // Causal (many wholly forbidden tiles above the diagonal), and a band
  // that also forbids whole tiles below it.
  Mask band = attn::causal_mask(T_q, T_v);
  for (Index i = 0; i < T_q; ++i)
    for (Index j = 0; j + 40 < i; ++j) band(i, j) = true;
  for (const Mask& mask : {attn::causal_mask(T_q, T_v), band}) {
    for (Index tq : {1, 16, 37, 64}) {
      attn::TileSizes skip{.query = tq, .key = 24};
      attn::TileSizes all = skip;
      all.skip_forbidden_tiles = false;
      INFO("query tile " << tq);
      const auto a = attn::attention_tiled<T>(Q, K, V, mask, skip);
      CHECK(bit_identical(a, attn::attention_tiled<T>(Q, K, V, mask, all)));
      const auto naive = attn::attention<T>(Q, K, V, mask);
      CHECK((a.O - naive.O).cwiseAbs().maxCoeff() <= o_tolerance<T>(T_v, d_k, V));
    }
  }
}

TEMPLATE_TEST_CASE("tiled: forbidden keys add exactly zero, however large their values",
                   "[tiled][zeros]", float, double) {
  using T = TestType;
  // Every allowed value is 0 and every forbidden one huge: a forbidden weight
  // of even one denormal (Eigen 3.4's vectorised exp gives 5.56e-309 for
  // -Inf in double) would make O nonzero.
  const T huge = std::numeric_limits<T>::max() / 4;
  std::mt19937_64 rng(3);
  const Index T_q = 70, T_v = 90, d_k = 8, d_v = 3;
  const auto Q = uniform<T>(T_q, d_k, rng, -1, 1);
  const auto K = uniform<T>(T_v, d_k, rng, -1, 1);
  const Mask mask = random_mask(T_q, T_v, rng);
  for (Index i = 0; i < T_q; ++i) {
    attn::Matrix<T> V = attn::Matrix<T>::Zero(T_v, d_v);
    for (Index j = 0; j < T_v; ++j)
      if (mask(i, j)) V.row(j).setConstant(huge);
    // Only row i is checked with this V: other rows allow some huge values.
    for (Index tk : {7, 32, 90}) {
      const auto r = attn::attention_tiled<T>(Q, K, V, mask, attn::TileSizes{16, tk});
      INFO("row " << i << ", key tile " << tk);
      REQUIRE(r.O.row(i).isZero(0));
      REQUIRE(std::isfinite(r.logsumexp(i)));
    }
  }
  // Logits that underflow in the exp: exp(-1e4) is 0 in every precision.
  attn::Matrix<T> Q1(1, 1), K1(2, 1), V1(2, 1);
  Q1 << T(100);
  K1 << T(100), T(-100);  // logits 1e4 and -1e4
  V1 << T(0), huge;
  const auto r = attn::attention_tiled<T>(Q1, K1, V1, std::nullopt, attn::TileSizes{1, 1});
  CHECK(r.O(0, 0) == T(0));
}

TEMPLATE_TEST_CASE("tiled: tiles that do not divide T, default tiles, against naive",
                   "[tiled][partial]", float, double) {
  using T = TestType;
  std::mt19937_64 rng(11);
  const Index T_q = 333, T_v = 517, d_k = 64, d_v = 64;
  const auto Q = uniform<T>(T_q, d_k, rng, -1, 1);
  const auto K = uniform<T>(T_v, d_k, rng, -1, 1);
  const auto V = uniform<T>(T_v, d_v, rng, -1, 1);
  const std::optional<Mask> masks[] = {std::nullopt, attn::causal_mask(T_q, T_v),
                                       attn::causal_mask(T_q, T_v, attn::CausalAlignment::bottom_right)};
  for (const auto& mask : masks) {
    const auto naive = attn::attention<T>(Q, K, V, mask);
    for (attn::TileSizes tiles : {attn::TileSizes{}, attn::TileSizes{100, 37}, attn::TileSizes{334, 518}}) {
      INFO("tiles " << tiles.query << " x " << tiles.key);
      const auto r = attn::attention_tiled<T>(Q, K, V, mask, tiles);
      CHECK((r.O - naive.O).cwiseAbs().maxCoeff() <= o_tolerance<T>(T_v, d_k, V));
    }
  }
}

TEST_CASE("tiled: a +Inf logit at a forbidden key is never read, skipped tile or not", "[tiled][skip]") {
  // The rule for logits (lib/src/logit_rule.hpp): as attention answers.
  using M = attn::Matrix<double>;
  const Index T = 8;
  M Q = M::Constant(T, 2, 1.0), K = M::Constant(T, 2, 1.0), V = M::Constant(T, 2, 1.0);
  Q(1, 0) = 1e200;
  K(6, 0) = 1e200;  // S(1, 6) = +Inf, above the diagonal: forbidden
  const auto naive = attn::attention<double>(Q, K, V, attn::causal_mask(T, T));
  for (Index t : {1, 2, 4}) {
    for (const bool skip : {true, false}) {
      attn::TileSizes tiles{t, t};
      tiles.skip_forbidden_tiles = skip;
      const auto r = attn::attention_tiled<double>(Q, K, V, attn::causal_mask(T, T), tiles);
      CHECK((r.O - naive.O).cwiseAbs().maxCoeff() <= o_tolerance<double>(T, 2, V));
    }
  }
  // At an allowed key the same logit is refused, naming the entry.
  try {
    attn::attention_tiled<double>(Q, K, V, std::nullopt, attn::TileSizes{2, 2});
    FAIL("no error");
  } catch (const attn::NonFiniteInputError& e) {
    CHECK(e.matrix() == "S");
    CHECK(e.row() == 1);
    CHECK(e.col() == 6);
  }
}

TEST_CASE("tiled: threads < 0 is a ShapeError", "[tiled]") {
  const attn::Matrix<float> Q = attn::Matrix<float>::Ones(2, 2);
  attn::TileSizes tiles;
  tiles.threads = -1;
  CHECK_THROWS_AS(attn::attention_tiled<float>(Q, Q, Q, std::nullopt, tiles), attn::ShapeError);
}

TEST_CASE("tiled: the kernel is the one ATTNLAB_TILED_ISA asks for, or the CPU's widest",
          "[tiled][isa]") {
  const std::string kernel = attn::attention_tiled_kernel();
  INFO("kernel " << kernel);
  CHECK((kernel == "baseline" || kernel == "avx2" || kernel == "avx512"));
  if (const char* env = std::getenv("ATTNLAB_TILED_ISA")) {
    // ctest runs the [tiled] tests again with baseline and avx2 (lib/CMakeLists.txt).
    if (std::string(env) == "baseline") CHECK(kernel == "baseline");
#if defined(__x86_64__)
    if (std::string(env) == "avx2" && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
      CHECK(kernel == "avx2");
#endif
  } else {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw"))
      CHECK(kernel == "avx512");
#endif
  }
}

TEMPLATE_TEST_CASE("tiled: logits of order 1e9 give weight exactly 1 at the maximum", "[tiled]",
                   float, double) {
  // s_j c - m must be 0 at the maximum even when the product s_j c rounds
  // by more than 100 (a product fused into the subtraction would not be).
  using T = TestType;
  using M = attn::Matrix<T>;
  for (Index d_k : {9, 3, 7}) {
    const M Q = M::Constant(1, d_k, T(-32768));
    const M K = M::Constant(2, d_k, T(32768));
    M V(2, 1);
    V << T(2), T(2);
    const auto r = attn::attention_tiled<T>(Q, K.topRows(1), V.topRows(1), std::nullopt,
                                            attn::TileSizes{1, 1});
    INFO("d_k " << d_k);
    CHECK(r.O(0, 0) == T(2));
    const auto r2 = attn::attention_tiled<T>(Q, K, V, std::nullopt, attn::TileSizes{1, 2});
    CHECK(r2.O(0, 0) == T(2));  // two equal logits: weights 1/2 each, exactly
  }
}

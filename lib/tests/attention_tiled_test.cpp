// Tiled attention with an online softmax (FlashAttention, Dao et al. 2022,
// Algorithm 1 / Theorem 1; the cost paragraph of section 32.2.4) against the
// naive form attn::attention: same O, logsumexp from the definition, the same
// refusals, and the edge paths (partial tiles, wholly forbidden tiles, huge logits).
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "attn/attn.hpp"
#include "random_inputs.hpp"

using attn::Index;
using attn::Mask;
using attn::test::uniform;

namespace {

/// Tolerance for |O_tiled - O_naive|, per entry.
///
/// Both forms compute the same logits (a d_k-term dot product each, error
/// about d_k u |S|). The naive form then evaluates exp(S_ij - m_i) once; the
/// tiled form evaluates exp(S_ij - m_running) and multiplies by one rescale
/// factor per later tile that raised the max. The rescale factors telescope
/// to exp(m_first - m_final), whose relative error is at most u (number of
/// rescales + |m_final - m_first|), and that error multiplies a weight no
/// larger than exp(m_first - m_final), so the product stays below
/// u (T_v + 1). The normaliser and O = A V add a T_v-term sum each in both
/// forms. O_i is a convex combination of rows of V, so every absolute error
/// scales with max|V|. Together: about (3 T_v + d_k + 4) u max|V| per form;
/// twice that for the difference of two forms, times a safety factor 2:
///   tol = 4 (3 T_v + d_k + 4) u max|V|    (u = epsilon / 2).
template <class T>
T o_tolerance(Index T_v, Index d_k, const attn::Matrix<T>& V) {
  const T u = std::numeric_limits<T>::epsilon() / 2;
  const T max_v = V.size() ? V.cwiseAbs().maxCoeff() : T(0);
  return T(4) * T(3 * T_v + d_k + 4) * u * max_v;
}

/// logsumexp_i = log sum_{allowed j} exp(S_ij), S = Q K^T / sqrt(d_k), from the
/// definition in long double (independent of lib/): -Inf for an empty row.
template <class T>
std::vector<long double> logsumexp_definition(const attn::Matrix<T>& Q, const attn::Matrix<T>& K,
                                              const std::optional<Mask>& mask) {
  std::vector<long double> lse(static_cast<std::size_t>(Q.rows()));
  const long double root = std::sqrt(static_cast<long double>(Q.cols()));
  for (Index i = 0; i < Q.rows(); ++i) {
    std::vector<long double> s;
    for (Index j = 0; j < K.rows(); ++j) {
      if (mask && (*mask)(i, j)) continue;
      long double dot = 0;
      for (Index r = 0; r < Q.cols(); ++r)
        dot += static_cast<long double>(Q(i, r)) * static_cast<long double>(K(j, r));
      s.push_back(dot / root);
    }
    long double m = -std::numeric_limits<long double>::infinity();
    for (long double x : s) m = std::max(m, x);
    long double z = 0;
    for (long double x : s) z += std::exp(x - m);
    lse[std::size_t(i)] = m + std::log(z);
  }
  return lse;
}

/// Tiled vs naive for one case and one pair of tile sizes.
template <class T>
void check_tiled_equals_naive(const attn::Matrix<T>& Q, const attn::Matrix<T>& K,
                              const attn::Matrix<T>& V, const std::optional<Mask>& mask,
                              attn::TileSizes tiles) {
  INFO("T_q = " << Q.rows() << ", T_v = " << K.rows() << ", d_k = " << Q.cols()
                << ", d_v = " << V.cols() << ", tiles " << tiles.query << " x " << tiles.key);
  const auto naive = attn::attention<T>(Q, K, V, mask);
  const auto tiled = attn::attention_tiled<T>(Q, K, V, mask, tiles);
  REQUIRE(tiled.O.rows() == naive.O.rows());
  REQUIRE(tiled.O.cols() == naive.O.cols());
  REQUIRE(tiled.logsumexp.size() == Q.rows());
  REQUIRE(tiled.O.allFinite());  // a NaN anywhere fails
  const T tol = o_tolerance<T>(K.rows(), Q.cols(), V);
  const T err = (tiled.O - naive.O).cwiseAbs().maxCoeff();
  INFO("max |O_tiled - O_naive| = " << err << ", tolerance " << tol);
  CHECK(err <= tol);

  // logsumexp against the definition: the logits' error (d_k + 2) u |S| plus
  // the normaliser's relative error (T_v + number of rescales + 2) u, with
  // the same safety factor 2 and a margin 2 for the long double reference.
  const auto lse = logsumexp_definition(Q, K, mask);
  const long double u = std::numeric_limits<T>::epsilon() / 2;
  for (Index i = 0; i < Q.rows(); ++i) {
    const long double exact = lse[std::size_t(i)];
    const long double bound =
        4 * u * ((Q.cols() + 2) * std::max(1.0L, std::abs(exact)) + 2 * K.rows() + 2);
    INFO("row " << i << ": logsumexp " << tiled.logsumexp(i) << ", definition " << exact);
    CHECK(std::abs(static_cast<long double>(tiled.logsumexp(i)) - exact) <= bound);
  }
}

/// Every tile size 1 .. T + 1 in both dimensions.
template <class T>
void check_all_tile_sizes(const attn::Matrix<T>& Q, const attn::Matrix<T>& K,
                          const attn::Matrix<T>& V, const std::optional<Mask>& mask) {
  for (Index tq = 1; tq <= Q.rows() + 1; ++tq)
    for (Index tk = 1; tk <= K.rows() + 1; ++tk)
      check_tiled_equals_naive<T>(Q, K, V, mask, attn::TileSizes{tq, tk});
}

/// A random mask that leaves every row at least one allowed key.
Mask random_mask(Index T_q, Index T_v, std::mt19937_64& rng) {
  std::bernoulli_distribution forbid(0.6);
  std::uniform_int_distribution<Index> keep(0, T_v - 1);
  Mask M(T_q, T_v);
  for (Index i = 0; i < T_q; ++i) {
    for (Index j = 0; j < T_v; ++j) M(i, j) = forbid(rng);
    M(i, keep(rng)) = false;
  }
  return M;
}

}  // namespace

TEMPLATE_TEST_CASE("tiled equals naive for every tile size, T_q != T_v, with and without masks",
                   "[tiled]", float, double) {
  using T = TestType;
  struct Shape {
    Index T_q, T_v, d_k, d_v;
  };
  // Sizes 7, 9, 11, 13 are divided by few tile sizes: most runs end in a partial tile.
  const std::vector<Shape> shapes = {{1, 1, 1, 1}, {7, 5, 3, 2}, {5, 9, 4, 3}, {13, 11, 2, 5}};
  // Runs `check(Q, K, V, rng)` on one random case per shape.
  auto for_each_shape = [&](auto check) {
    std::uint64_t seed = 20261129;
    for (const Shape& sh : shapes) {
      INFO("seed " << seed);
      std::mt19937_64 rng(seed++);
      const auto Q = uniform<T>(sh.T_q, sh.d_k, rng, -2, 2);
      const auto K = uniform<T>(sh.T_v, sh.d_k, rng, -2, 2);
      const auto V = uniform<T>(sh.T_v, sh.d_v, rng, -3, 3);
      check(Q, K, V, rng);
    }
  };
  using Mat = attn::Matrix<T>;
  SECTION("no mask") {
    for_each_shape([](const Mat& Q, const Mat& K, const Mat& V, std::mt19937_64&) {
      check_all_tile_sizes<T>(Q, K, V, std::nullopt);
    });
  }
  SECTION("causal, top-left (query i sees j <= i)") {
    for_each_shape([](const Mat& Q, const Mat& K, const Mat& V, std::mt19937_64&) {
      check_all_tile_sizes<T>(Q, K, V, attn::causal_mask(Q.rows(), K.rows()));
    });
  }
  SECTION("causal, bottom-right, where every row keeps a key (T_q <= T_v)") {
    for_each_shape([](const Mat& Q, const Mat& K, const Mat& V, std::mt19937_64&) {
      if (Q.rows() <= K.rows())
        check_all_tile_sizes<T>(
            Q, K, V, attn::causal_mask(Q.rows(), K.rows(), attn::CausalAlignment::bottom_right));
    });
  }
  SECTION("padding, every key length 1 .. T_v") {
    for_each_shape([](const Mat& Q, const Mat& K, const Mat& V, std::mt19937_64&) {
      for (Index len = 1; len <= K.rows(); ++len)
        check_all_tile_sizes<T>(Q, K, V, attn::padding_mask(Q.rows(), K.rows(), len));
    });
  }
  SECTION("random mask") {
    for_each_shape([](const Mat& Q, const Mat& K, const Mat& V, std::mt19937_64& rng) {
      check_all_tile_sizes<T>(Q, K, V, random_mask(Q.rows(), K.rows(), rng));
    });
  }
}

TEMPLATE_TEST_CASE("a key tile wholly forbidden for a row is skipped without NaN", "[tiled]", float,
                   double) {
  using T = TestType;
  std::mt19937_64 rng(7);
  const Index T_q = 6, T_v = 12;
  const auto Q = uniform<T>(T_q, 3, rng);
  const auto K = uniform<T>(T_v, 3, rng);
  const auto V = uniform<T>(T_v, 2, rng, -5, 5);
  // With key tiles of 4: row 0 loses the first tile (the running max is
  // still -Inf when the row's first allowed tile arrives), row 1 a middle
  // tile, row 2 the last tile; row 3 sees only the last key, row 4 only the
  // first; row 5 sees everything. Other tile sizes cut these blocks differently.
  Mask M = Mask::Constant(T_q, T_v, false);
  for (Index j = 0; j < 4; ++j) M(0, j) = true;
  for (Index j = 4; j < 8; ++j) M(1, j) = true;
  for (Index j = 8; j < 12; ++j) M(2, j) = true;
  for (Index j = 0; j < 11; ++j) M(3, j) = true;
  for (Index j = 1; j < 12; ++j) M(4, j) = true;
  check_all_tile_sizes<T>(Q, K, V, M);

  for (Index tk = 1; tk <= T_v + 1; ++tk) {
    const auto r = attn::attention_tiled<T>(Q, K, V, M, attn::TileSizes{2, tk});
    INFO("key tile " << tk);
    // A single allowed key gets weight exp(0) / 1 = 1 exactly: O is that value row.
    CHECK(r.O.row(3) == V.row(11));
    CHECK(r.O.row(4) == V.row(0));
  }
}

TEST_CASE("tiled: logits around +-800 in double do not overflow", "[tiled]") {
  using M = attn::Matrix<double>;
  // d_k = 1, so every logit is one exactly rounded product, the same in both forms.
  M Q(4, 1), K(7, 1), V(7, 2);
  Q << 800, -800, 1, 0.5;
  // Increasing logits for row 0: each key tile raises the max by hundreds,
  // so the rescale factors underflow to 0.
  K << -1, -0.5, 0, 0.5, 0.99, 1, 0.999;
  V << 1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6, 7, -7;
  for (Index tk = 1; tk <= 8; ++tk) {
    check_tiled_equals_naive<double>(Q, K, V, std::nullopt, attn::TileSizes{3, tk});
    const auto r = attn::attention_tiled<double>(Q, K, V, std::nullopt, attn::TileSizes{3, tk});
    INFO("key tile " << tk);
    CHECK(std::isfinite(r.logsumexp(0)));
    CHECK(r.logsumexp(0) > 800.0);  // log(e^800 + ...) for row 0
    // Row 1: logits 800, 400, 0, -400, ...: log(e^800 (1 + e^-400 + ...)) rounds to 800.
    CHECK(r.logsumexp(1) == 800.0);
  }
}

TEST_CASE("tiled: logits around +-80 in float do not overflow", "[tiled]") {
  using M = attn::Matrix<float>;
  M Q(2, 1), K(5, 1), V(5, 1);
  Q << 80, -80;
  K << -1, 0, 0.5f, 1, 0.25f;
  V << 1, 2, 3, 4, 5;
  for (Index tk = 1; tk <= 6; ++tk)
    check_tiled_equals_naive<float>(Q, K, V, std::nullopt, attn::TileSizes{1, tk});
}

TEST_CASE("tiled: a logit that overflows to -Inf is forbidden, to +Inf refused", "[tiled]") {
  using M = attn::Matrix<double>;
  M Q(1, 2), K(3, 2), V(3, 2);
  Q << 1e200, 1;
  K << -1e200, 0,  // logit -Inf: weight 0, like masked_softmax
      0, 1, 0, 2;
  V << 100, 100, 1, 0, 0, 1;
  for (Index tk = 1; tk <= 4; ++tk) {
    const auto naive = attn::attention<double>(Q, K, V);
    const auto tiled = attn::attention_tiled<double>(Q, K, V, std::nullopt, attn::TileSizes{1, tk});
    REQUIRE(naive.A(0, 0) == 0.0);
    REQUIRE(tiled.O.allFinite());
    CHECK((tiled.O - naive.O).cwiseAbs().maxCoeff() <= o_tolerance<double>(3, 2, V));
  }
  // Every allowed logit overflows to -Inf: refused as an overflow (the rule
  // for logits), not as a fully masked row (the mask allowed those keys).
  M K_all(2, 2);
  K_all << -1e200, 0, -1e200, 0;
  CHECK_THROWS_AS(attn::attention_tiled<double>(Q, K_all, V.topRows(2), std::nullopt),
                  attn::NonFiniteInputError);
  M K_pos = K;
  K_pos(1, 0) = 1e200;  // logit +Inf
  try {
    attn::attention_tiled<double>(Q, K_pos, V, std::nullopt, attn::TileSizes{1, 1});
    FAIL("no error");
  } catch (const attn::NonFiniteInputError& e) {
    CHECK(e.matrix() == "S");
    CHECK(e.row() == 0);
    CHECK(e.col() == 1);
  }
  CHECK_THROWS_AS(attn::attention<double>(Q, K_pos, V), attn::NonFiniteInputError);
}

TEST_CASE("tiled: a fully forbidden row is refused with its index", "[tiled]") {
  using M = attn::Matrix<float>;
  Mask mask = Mask::Constant(8, 5, false);
  mask.row(5).setConstant(true);
  for (Index tq = 1; tq <= 9; ++tq)
    for (Index tk = 1; tk <= 6; ++tk) {
      INFO("tiles " << tq << " x " << tk);
      try {
        attn::attention_tiled<float>(M::Ones(8, 2), M::Ones(5, 2), M::Ones(5, 3), mask,
                                     attn::TileSizes{tq, tk});
        FAIL("no error");
      } catch (const attn::FullyMaskedRowError& e) {
        CHECK(e.row() == 5);
        CHECK_THAT(std::string(e.what()), Catch::Contains("row 5"));
      }
    }
  // Two such rows: the lowest is named, in whatever query tile it falls.
  mask.row(2).setConstant(true);
  try {
    attn::attention_tiled<float>(M::Ones(8, 2), M::Ones(5, 2), M::Ones(5, 3), mask,
                                 attn::TileSizes{4, 2});
    FAIL("no error");
  } catch (const attn::FullyMaskedRowError& e) {
    CHECK(e.row() == 2);
  }
  // T_v = 0: no key for any query.
  try {
    attn::attention_tiled<float>(M::Ones(3, 2), M(0, 2), M(0, 1), std::nullopt);
    FAIL("no error");
  } catch (const attn::FullyMaskedRowError& e) {
    CHECK(e.row() == 0);
  }
}

TEST_CASE("tiled: faulty logits are met row by row before any tile, whatever the tiles", "[tiled]") {
  using M = attn::Matrix<double>;
  // Row 0 fully forbidden; logits overflowing to +Inf at (1, 2) and (2, 0).
  M Q(3, 2), K(3, 2);
  Q << 1, 1, 1e200, 0, 0, 1e200;
  K << 0, 1e200, 0, 0, 1e200, 0;
  const M V = M::Ones(3, 2);
  Mask mask = Mask::Constant(3, 3, false);
  mask.row(0).setConstant(true);
  for (Index tq = 1; tq <= 3; ++tq)
    for (Index tk = 1; tk <= 3; ++tk) {
      INFO("tiles " << tq << " x " << tk);
      for (const auto& m : {std::optional<Mask>(mask), std::optional<Mask>()}) {
        try {  // the first faulty logit in row-major order, fully forbidden row 0 or not
          attn::attention_tiled<double>(Q, K, V, m, attn::TileSizes{tq, tk});
          FAIL("no error");
        } catch (const attn::NonFiniteInputError& e) {
          CHECK(e.row() == 1);
          CHECK(e.col() == 2);
        }
      }
    }
  // attention meets the rows in order: row 0 first.
  try {
    attn::attention<double>(Q, K, V, mask);
    FAIL("no error");
  } catch (const attn::FullyMaskedRowError& e) {
    CHECK(e.row() == 0);
  }
  try {
    attn::attention<double>(Q, K, V);
    FAIL("no error");
  } catch (const attn::NonFiniteInputError& e) {
    CHECK(e.row() == 1);
    CHECK(e.col() == 2);
  }
}

TEST_CASE("tiled: tile sizes below 1 and bad shapes are ShapeErrors, like attention", "[tiled]") {
  using M = attn::Matrix<double>;
  const M Q = M::Ones(3, 2), K = M::Ones(4, 2), V = M::Ones(4, 1);
  CHECK_THROWS_AS(attn::attention_tiled<double>(Q, K, V, std::nullopt, attn::TileSizes{0, 4}),
                  attn::ShapeError);
  CHECK_THROWS_AS(attn::attention_tiled<double>(Q, K, V, std::nullopt, attn::TileSizes{4, 0}),
                  attn::ShapeError);
  CHECK_THROWS_AS(attn::attention_tiled<double>(Q, K, V, std::nullopt, attn::TileSizes{-1, 2}),
                  attn::ShapeError);
  try {
    attn::attention_tiled<double>(Q, M::Ones(4, 3), V, std::nullopt);
    FAIL("no error");
  } catch (const attn::ShapeError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("3x2"));
    CHECK_THAT(std::string(e.what()), Catch::Contains("4x3"));
  }
  CHECK_THROWS_AS(attn::attention_tiled<double>(Q, K, M::Ones(5, 1), std::nullopt),
                  attn::ShapeError);
  CHECK_THROWS_AS(attn::attention_tiled<double>(Q, K, V, Mask::Constant(4, 3, false)),
                  attn::ShapeError);
  CHECK_THROWS_AS(attn::attention_tiled<double>(M(3, 0), M(4, 0), V, std::nullopt),
                  attn::ShapeError);
  M V_nan = V;
  V_nan(2, 0) = std::numeric_limits<double>::quiet_NaN();
  try {
    attn::attention_tiled<double>(Q, K, V_nan, std::nullopt);
    FAIL("no error");
  } catch (const attn::NonFiniteInputError& e) {
    CHECK(e.matrix() == "V");
    CHECK(e.row() == 2);
    CHECK(e.col() == 0);
  }
  M Q_inf = Q;
  Q_inf(1, 1) = std::numeric_limits<double>::infinity();
  CHECK_THROWS_AS(attn::attention_tiled<double>(Q_inf, K, V, std::nullopt),
                  attn::NonFiniteInputError);
}

TEST_CASE("tiled: T_q = 0 gives an empty result, tiles larger than T are one tile", "[tiled]") {
  using M = attn::Matrix<double>;
  const auto empty =
      attn::attention_tiled<double>(M(0, 2), M::Ones(3, 2), M::Ones(3, 4), std::nullopt);
  CHECK(empty.O.rows() == 0);
  CHECK(empty.O.cols() == 4);
  CHECK(empty.logsumexp.size() == 0);
  // Equal logits: uniform weights, O is the mean of V's rows, logsumexp = S + log T_v.
  M V(4, 1);
  V << 1, 2, 3, 6;
  const auto r = attn::attention_tiled<double>(M::Ones(2, 1), M::Ones(4, 1), V, std::nullopt,
                                               attn::TileSizes{1000, 1000});
  CHECK(r.O(0, 0) == Approx(3.0).epsilon(1e-15));
  CHECK(r.logsumexp(1) == Approx(1.0 + std::log(4.0)).epsilon(1e-15));
}

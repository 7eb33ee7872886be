// The oracle for multi-head attention and the sinusoidal encoding
// (section 32.2.5): checked against independent values (bc -l, exact
// integer projections, exact_attention), then the library against it.
#include "attn/ref/oracle_extras.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>

#include "attn/attn.hpp"
#include "attn/ref/error_bound.hpp"
#include "attn/ref/oracle.hpp"

using attn::ref::BoolMatrix;
using attn::ref::DMatrix;
using attn::ref::Real;
using attn::ref::RealMatrix;

namespace {

DMatrix uniform(std::ptrdiff_t rows, std::ptrdiff_t cols, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> dist(-1, 1);
  DMatrix M(rows, cols);
  for (std::ptrdiff_t i = 0; i < rows; ++i)
    for (std::ptrdiff_t j = 0; j < cols; ++j) M(i, j) = dist(rng);
  return M;
}

/// Small integers: every product and sum of a projection is exact in double.
DMatrix small_integers(std::ptrdiff_t rows, std::ptrdiff_t cols, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> dist(-3, 3);
  DMatrix M(rows, cols);
  for (std::ptrdiff_t i = 0; i < rows; ++i)
    for (std::ptrdiff_t j = 0; j < cols; ++j) M(i, j) = dist(rng);
  return M;
}

attn::ref::MultiHeadWeights weights(
    int h, std::ptrdiff_t d_model, std::ptrdiff_t d_k, std::ptrdiff_t d_v, std::ptrdiff_t d_out,
    DMatrix (*gen)(std::ptrdiff_t, std::ptrdiff_t, std::mt19937_64&), std::mt19937_64& rng) {
  attn::ref::MultiHeadWeights w;
  for (int i = 0; i < h; ++i)
    w.heads.push_back({gen(d_model, d_k, rng), gen(d_model, d_k, rng), gen(d_model, d_v, rng)});
  w.W_O = gen(h * d_v, d_out, rng);
  return w;
}

Real max_abs_diff(const RealMatrix& a, const RealMatrix& b) {
  REQUIRE(a.rows == b.rows);
  REQUIRE(a.cols == b.cols);
  Real m = 0;
  for (std::size_t k = 0; k < a.data.size(); ++k) m = std::max(m, Real(abs(a.data[k] - b.data[k])));
  return m;
}

/// The oracle's refusal message, or "" if it answered.
std::string refusal_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const attn::ref::OracleRefusal& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("oracle: positional encoding against bc -l values to 45 digits", "[oracle_extras]") {
  const RealMatrix P = attn::ref::exact_sinusoidal_positional_encoding(2, 4);
  const Real tol("1e-45");
  for (int c = 0; c < 4; ++c) CHECK(P(0, c) == (c % 2 == 0 ? 0 : 1));
  // t = 1, d = 4: [sin 1, cos 1, sin(1/100), cos(1/100)], from `bc -l` at 60 digits.
  CHECK(abs(P(1, 0) - Real("0.841470984807896506652502321630298999622563060798371065672751")) <
        tol);
  CHECK(abs(P(1, 1) - Real("0.540302305868139717400936607442976603732310420617922227670097")) <
        tol);
  CHECK(abs(P(1, 2) - Real("0.009999833334166664682542438269099729038964385360169151033879")) <
        tol);
  CHECK(abs(P(1, 3) - Real("0.999950000416665277780257933752206673212470583980277111122275")) <
        tol);
  // Odd d = 5: column 4 is sin(2 / 10000^(4/5)) at t = 2.
  const RealMatrix P5 = attn::ref::exact_sinusoidal_positional_encoding(3, 5);
  CHECK(abs(P5(2, 4) - Real("0.001261914354042222297590361062766130028615515771108103107314")) <
        tol);
  CHECK_THROWS_AS(attn::ref::exact_sinusoidal_positional_encoding(-1, 2), attn::ref::OracleRefusal);
}

TEMPLATE_TEST_CASE(
    "library positional encoding is within 2 ulp (plus the angle's rounding) of the oracle",
    "[oracle_extras]", float, double) {
  using T = TestType;
  const std::ptrdiff_t T_len = 64;
  for (std::ptrdiff_t d : {16, 7}) {
    const auto P = attn::sinusoidal_positional_encoding<T>(T_len, d);
    const RealMatrix exact = attn::ref::exact_sinusoidal_positional_encoding(T_len, d);
    // The library forms the angle theta = t / 10000^(2r/d) in double: the
    // exponent 2r/d (0.5 u_d, amplified by ln 10000 < 9.3 into 4.7 u_d), pow
    // (at most 1 ulp, 2 u_d) and the division (u_d) give a relative error
    // below 8 u_d in theta, so |error of sin or cos| <= 8 u_d |theta| on top
    // of 1 ulp for sin/cos itself and half a ulp of T for the final rounding.
    // Bound: 2 ulp of T at the exact value + 2 * 8 u_d |theta| (safety 2).
    const double u_d = 0x1p-53;
    for (std::ptrdiff_t t = 0; t < T_len; ++t)
      for (std::ptrdiff_t c = 0; c < d; ++c) {
        const double theta = double(t) / std::pow(10000.0, double(c - c % 2) / double(d));
        const T e = static_cast<T>(exact(t, c));
        const double ulp =
            double(std::nextafter(std::abs(e), std::numeric_limits<T>::infinity()) - std::abs(e));
        const double err = static_cast<double>(abs(Real(P(t, c)) - exact(t, c)));
        INFO("P(" << t << ", " << c << ") = " << P(t, c) << ", error " << err << " = " << err / ulp
                  << " ulp");
        CHECK(err <= 2 * ulp + 16 * u_d * theta);
      }
  }
}

TEST_CASE("oracle: multi-head with h = 1, W_O = I is exact_attention of exact projections",
          "[oracle_extras]") {
  std::mt19937_64 rng(41);
  auto w = weights(1, 4, 3, 2, 2, small_integers, rng);
  w.W_O = DMatrix::Identity(2, 2);
  const DMatrix X_q = small_integers(3, 4, rng), X_kv = small_integers(5, 4, rng);
  // Integers of at most 3 in a 4-term sum: X W is exact in double.
  const DMatrix Q = X_q * w.heads[0].W_Q, K = X_kv * w.heads[0].W_K, V = X_kv * w.heads[0].W_V;
  // Integer logits are large and the weights nearly one-hot: forbid each
  // row's heaviest key, so that the mask surely matters.
  const auto unmasked = attn::ref::exact_attention(Q, K, V, std::nullopt);
  BoolMatrix mask = BoolMatrix::Constant(3, 5, false);
  for (std::ptrdiff_t i = 0; i < 3; ++i) {
    std::ptrdiff_t heaviest = 0;
    for (std::ptrdiff_t j = 1; j < 5; ++j)
      if (unmasked.A(i, j) > unmasked.A(i, heaviest)) heaviest = j;
    mask(i, heaviest) = true;
  }
  const auto single = attn::ref::exact_attention(Q, K, V, mask);
  const RealMatrix multi = attn::ref::exact_multi_head_attention(X_q, X_kv, w, mask);
  CHECK(max_abs_diff(multi, single.O) < Real("1e-45"));
  CHECK(max_abs_diff(attn::ref::exact_multi_head_attention(X_q, X_kv, w, std::nullopt),
                     unmasked.O) < Real("1e-45"));
  // Not vacuous: the mask moves the answer.
  CHECK(max_abs_diff(multi, unmasked.O) > Real("1e-3"));
}

TEST_CASE("oracle: multi-head concatenates head by head, then multiplies by W_O",
          "[oracle_extras]") {
  std::mt19937_64 rng(42);
  const std::ptrdiff_t d_v = 2;
  auto w = weights(3, 4, 2, d_v, 5, small_integers, rng);
  const DMatrix X = small_integers(4, 4, rng);
  const RealMatrix O = attn::ref::exact_multi_head_attention(X, X, w, std::nullopt);
  REQUIRE(O.rows == 4);
  REQUIRE(O.cols == 5);
  // Expected: sum over heads i of O_i W_O[i d_v : (i+1) d_v, :], O_i from exact_attention.
  RealMatrix expected(4, 5);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& hw = w.heads[i];
    const auto head = attn::ref::exact_attention(X * hw.W_Q, X * hw.W_K, X * hw.W_V, std::nullopt);
    for (std::ptrdiff_t t = 0; t < 4; ++t)
      for (std::ptrdiff_t c = 0; c < 5; ++c)
        for (std::ptrdiff_t l = 0; l < d_v; ++l)
          expected(t, c) += head.O(t, l) * Real(w.W_O(std::ptrdiff_t(i) * d_v + l, c));
  }
  CHECK(max_abs_diff(O, expected) < Real("1e-44"));
}

TEST_CASE("oracle: multi-head refusals name the head, and a fully forbidden row is refused",
          "[oracle_extras]") {
  std::mt19937_64 rng(43);
  const auto good = weights(3, 4, 2, 2, 3, uniform, rng);
  const DMatrix X = uniform(3, 4, rng);
  auto w = good;
  w.heads[2].W_K = DMatrix::Ones(5, 2);
  CHECK_THAT(refusal_of([&] { attn::ref::exact_multi_head_attention(X, X, w, std::nullopt); }),
             Catch::Contains("head 2: W_K is 5x2"));
  w = good;
  w.heads.clear();
  CHECK_THAT(refusal_of([&] { attn::ref::exact_multi_head_attention(X, X, w, std::nullopt); }),
             Catch::Contains("no heads"));
  w = good;
  w.W_O = DMatrix::Ones(5, 3);
  CHECK_THAT(refusal_of([&] { attn::ref::exact_multi_head_attention(X, X, w, std::nullopt); }),
             Catch::Contains("W_O"));
  BoolMatrix mask = BoolMatrix::Constant(3, 3, false);
  mask.row(1).setConstant(true);
  try {
    attn::ref::exact_multi_head_attention(X, X, good, mask);
    FAIL("expected a refusal");
  } catch (const attn::ref::OracleRefusal& e) {
    CHECK(e.row() == 1);
  }
}

namespace {

/// A-priori estimate of |O_lib - O_exact| for multi-head attention with unit
/// roundoff u, from max-norms of the inputs (there is no per-entry bound
/// model for multi-head yet; this is its max-norm form):
///   projections: |Q| <= max (|X_q| |W_Q|) =: p_Q, error gamma_{d_model} p_Q (same for K, V);
///   logits: error e_S <= (d_k (p_Q e_K + e_Q p_K) + gamma_{d_k + 2} d_k p_Q p_K) / sqrt(d_k);
///   weights: relative error about 2 e_S + gamma_{T_v + 2} (shifted exp and normaliser);
///   head output: e_O <= (2 e_S + 2 gamma_{T_v + 2}) p_V + e_V (a convex combination);
///   output: h d_v |W_O| max e_O + gamma_{h d_v} h d_v |concat| |W_O|;
/// times the safety factor 2 of the error-bound model.
double multi_head_estimate(const DMatrix& X_q, const DMatrix& X_kv,
                           const attn::ref::MultiHeadWeights& w, double u) {
  using attn::ref::gamma;
  const double d_model = double(X_q.cols()), T_v = double(X_kv.rows());
  const double h = double(w.heads.size()), d_v = double(w.W_O.rows()) / h;
  double e_head = 0, p_head = 0;
  for (const auto& hw : w.heads) {
    const double d_k = double(hw.W_Q.cols());
    // Entry bounds |X| |W| (absolute values, then the product): p_Q = max |X_q| |W_Q|.
    const double pQ = (X_q.cwiseAbs() * hw.W_Q.cwiseAbs()).maxCoeff();
    const double pK = (X_kv.cwiseAbs() * hw.W_K.cwiseAbs()).maxCoeff();
    const double pV = (X_kv.cwiseAbs() * hw.W_V.cwiseAbs()).maxCoeff();
    const double g = gamma(d_model, u);
    const double eQ = g * pQ, eK = g * pK, eV = g * pV;
    const double eS =
        (d_k * (pQ * eK + eQ * pK) + gamma(d_k + 2, u) * d_k * pQ * pK) / std::sqrt(d_k);
    e_head = std::max(e_head, (2 * eS + 2 * gamma(T_v + 2, u)) * pV + eV);
    p_head = std::max(p_head, pV);
  }
  const double wo = w.W_O.cwiseAbs().maxCoeff();
  return attn::ref::kSafetyFactor *
         (h * d_v * wo * e_head + gamma(h * d_v, u) * h * d_v * p_head * wo);
}

/// Largest |O(i, j) - exact(i, j)|.
template <class T>
double max_error(const attn::Matrix<T>& O, const RealMatrix& exact) {
  REQUIRE(O.rows() == exact.rows);
  REQUIRE(O.cols() == exact.cols);
  double err = 0;
  for (std::ptrdiff_t i = 0; i < O.rows(); ++i)
    for (std::ptrdiff_t j = 0; j < O.cols(); ++j)
      err = std::max(err, static_cast<double>(abs(Real(O(i, j)) - exact(i, j))));
  return err;
}

template <class T>
attn::MultiHeadWeights<T> to_lib(const attn::ref::MultiHeadWeights& w) {
  attn::MultiHeadWeights<T> out;
  for (const auto& hw : w.heads)
    out.heads.push_back({hw.W_Q.cast<T>(), hw.W_K.cast<T>(), hw.W_V.cast<T>()});
  out.W_O = w.W_O.cast<T>();
  return out;
}

}  // namespace

TEMPLATE_TEST_CASE("library multi-head attention agrees with the oracle", "[oracle_extras]", float,
                   double) {
  using T = TestType;
  const double u = std::numeric_limits<T>::epsilon() / 2;
  std::mt19937_64 rng(44);
  // Inputs are generated in double and rounded to T; the oracle gets the
  // rounded values (exactly representable in double), so both see the same case.
  auto w = weights(3, 6, 2, 3, 4, uniform, rng);
  auto round = [](DMatrix& M) { M = M.cast<T>().template cast<double>(); };
  for (auto& hw : w.heads) round(hw.W_Q), round(hw.W_K), round(hw.W_V);
  round(w.W_O);
  const auto wl = to_lib<T>(w);
  const DMatrix X = uniform(7, 6, rng).cast<T>().template cast<double>();
  const DMatrix X_q = uniform(5, 6, rng).cast<T>().template cast<double>();

  // Not vacuous: the heads' blocks of W_O in reverse order give an answer
  // farther from the library's than the estimate.
  auto w_reversed = w;
  w_reversed.W_O = w.W_O.colwise().reverse();

  SECTION("self-attention with a causal mask") {
    const BoolMatrix causal = attn::causal_mask(7, 7);
    const auto O = attn::multi_head_attention<T>(X.cast<T>(), wl, causal);
    const double tol = multi_head_estimate(X, X, w, u);
    const double err = max_error<T>(O, attn::ref::exact_multi_head_attention(X, X, w, causal));
    INFO("max error " << err << ", estimate " << tol);
    CHECK(err <= tol);
    CHECK(max_error<T>(O, attn::ref::exact_multi_head_attention(X, X, w_reversed, causal)) > tol);
  }
  SECTION("cross-attention with padding") {
    const BoolMatrix pad = attn::padding_mask(5, 7, 5);
    const auto O = attn::multi_head_attention<T>(X_q.cast<T>(), X.cast<T>(), wl, pad);
    const double tol = multi_head_estimate(X_q, X, w, u);
    const double err = max_error<T>(O, attn::ref::exact_multi_head_attention(X_q, X, w, pad));
    INFO("max error " << err << ", estimate " << tol);
    CHECK(err <= tol);
    CHECK(max_error<T>(O, attn::ref::exact_multi_head_attention(X_q, X, w_reversed, pad)) > tol);
  }
}

// Section 14.3's sweep (`attnlab demo scaling-sweep`, commands/demo_sweep.hpp):
// its per-seed numbers against the 50-digit oracle at a few d_k, and the
// claim the figure makes: the unscaled entropy collapses as d_k grows while
// the scaled one stays level.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "attn/ref/oracle.hpp"
#include "commands/demo_data.hpp"
#include "commands/demo_sweep.hpp"

namespace {

using attn::grader::ScalingSweep;
using attn::ref::Real;

struct Exact {
  double entropy = 0, largest = 0;
};

/// The mean row entropy and mean largest weight of the oracle's weights.
Exact exact_stats(const attn::ref::DMatrix& Q, const attn::ref::DMatrix& K, bool scaled) {
  const auto T = Q.rows();
  const attn::ref::DMatrix V = attn::ref::DMatrix::Identity(T, T);
  const auto ex = attn::ref::exact_attention(Q, K, V, std::nullopt,
                                             scaled ? std::nullopt : std::optional<double>(1.0));
  Real entropy = 0, largest = 0;
  for (std::ptrdiff_t i = 0; i < T; ++i) {
    Real top = 0;
    for (std::ptrdiff_t j = 0; j < T; ++j) {
      const Real& a = ex.A(i, j);
      if (a > 0) entropy -= a * boost::multiprecision::log(a);
      top = std::max(top, a);
    }
    largest += top;
  }
  return {static_cast<double>(entropy / T), static_cast<double>(largest / T)};
}

/// A bound on how far double weights computed from these Q, K can be from the
/// exact ones, relative to each weight: a logit's rounding error is at most
/// gamma_{d_k+2} sum_l |q_il k_jl| times the scale (a dot product, Higham,
/// "Accuracy and Stability of Numerical Algorithms", 3.1, with the scaling);
/// a shift by the row maximum cancels, and a weight exp(s_ij - m) / sum
/// changes by at most 2 max |error of s| relative, plus (T + 8) u for the
/// exponentials, the sum and the division.
double relative_weight_bound(const attn::ref::DMatrix& Q, const attn::ref::DMatrix& K, bool scaled) {
  const double u = std::numeric_limits<double>::epsilon() / 2;
  const double d_k = static_cast<double>(Q.cols());
  const double gamma = (d_k + 2) * u / (1 - (d_k + 2) * u);
  const double scale = scaled ? 1 / std::sqrt(d_k) : 1.0;
  const double worst = (Q.cwiseAbs() * K.cwiseAbs().transpose()).maxCoeff() * scale * gamma;
  return 2 * worst + (static_cast<double>(Q.rows()) + 8) * u;
}

TEST_CASE("demo/scaling-sweep: per-seed entropy and largest weight agree with the 50-digit oracle") {
  attn::grader::SweepInputs in;  // T = 16, 10 seeds from 1, d_k 1..1024
  const ScalingSweep sweep = attn::grader::scaling_sweep(in);
  REQUIRE(sweep.d_k.size() == 11);
  REQUIRE(sweep.d_k.back() == 1024);
  REQUIRE(sweep.series.size() == 2);
  for (std::size_t i : {std::size_t(0), std::size_t(5), std::size_t(10)}) {  // d_k = 1, 32, 1024
    for (std::size_t k : {std::size_t(0), std::size_t(9)}) {
      attn::Matrix<double> Q, K;
      attn::grader::demo_random_qk(in.size, sweep.d_k[i], sweep.seeds[k], Q, K);
      for (std::size_t s = 0; s < 2; ++s) {
        const bool scaled = sweep.series[s].key == "scaled";
        CAPTURE(sweep.d_k[i], sweep.seeds[k], sweep.series[s].key);
        const Exact exact = exact_stats(Q, K, scaled);
        const double delta = relative_weight_bound(Q, K, scaled);
        // |dH| <= sum_j |da_j| (|log a_j| + 1) <= delta (H + 1) per row; |d max a| <= delta.
        CHECK(std::fabs(sweep.series[s].entropy[i][k] - exact.entropy) <= delta * (exact.entropy + 1));
        CHECK(std::fabs(sweep.series[s].largest[i][k] - exact.largest) <= delta);
      }
    }
  }
}

TEST_CASE("demo/scaling-sweep: the unscaled entropy collapses as d_k grows, the scaled one stays level") {
  const ScalingSweep sweep = attn::grader::scaling_sweep(attn::grader::SweepInputs{});
  const auto& scaled = sweep.series[0];
  const auto& unscaled = sweep.series[1];
  REQUIRE(scaled.key == "scaled");
  REQUIRE(unscaled.key == "unscaled");
  const double uniform = std::log(16.0);
  auto mean = [](const std::vector<double>& v) { return attn::grader::spread_of(v).mean; };
  const std::size_t last = sweep.d_k.size() - 1;
  // At d_k = 1 the scale is 1: both series are the same weights.
  CHECK(std::fabs(mean(scaled.entropy[0]) - mean(unscaled.entropy[0])) < 1e-12);
  // Scaled: the logits have variance 1 at every d_k; the mean entropy stays
  // within a tenth of log T of its value at d_k = 1, and far from 0.
  for (std::size_t i = 0; i <= last; ++i) {
    CAPTURE(sweep.d_k[i]);
    CHECK(std::fabs(mean(scaled.entropy[i]) - mean(scaled.entropy[0])) < 0.1 * uniform);
    CHECK(mean(scaled.largest[i]) < 0.5);
  }
  // Unscaled: a logit's standard deviation is sqrt(d_k); by d_k = 1024 (32)
  // each row puts nearly all its weight on one key, in every seed.
  CHECK(mean(unscaled.entropy[last]) < 0.1 * mean(unscaled.entropy[0]));
  CHECK(attn::grader::spread_of(unscaled.largest[last]).min > 0.85);
  for (std::size_t i = 1; i <= last; ++i) {
    CAPTURE(sweep.d_k[i]);
    CHECK(mean(unscaled.entropy[i]) < mean(unscaled.entropy[i - 1]));
  }
}

TEST_CASE("demo/scaling-sweep: quartiles of the spread") {
  const auto s = attn::grader::spread_of({4, 1, 3, 2, 5});
  CHECK(s.min == 1);
  CHECK(s.q1 == 2);
  CHECK(s.median == 3);
  CHECK(s.q3 == 4);
  CHECK(s.max == 5);
  CHECK(s.mean == 3);
  const auto t = attn::grader::spread_of({0, 1});
  CHECK(t.q1 == 0.25);
  CHECK(t.median == 0.5);
}

}  // namespace

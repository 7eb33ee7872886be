// The library follows the rule for logits as the oracle states it
// (reference/include/attn/ref/logit_rule.hpp): on cases whose logits
// overflow the type in either direction, it refuses exactly where the
// oracle says (the same row and, for +Inf, the same entry) and answers
// otherwise, with weight 0 at logits that overflow to -Inf.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>

#include "attn/attn.hpp"
#include "attn/ref/logit_rule.hpp"

namespace {

template <class T>
void check_against_oracle(double magnitude, int cases) {
  std::mt19937 rng(20261201);
  const double max_finite = static_cast<double>(std::numeric_limits<T>::max());
  int refused = 0, answered_with_overflow = 0;
  for (int c = 0; c < cases; ++c) {
    std::uniform_int_distribution<int> size(1, 4);
    const int T_q = size(rng), T_v = size(rng), d_k = size(rng);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    std::bernoulli_distribution huge(0.5), masked(0.25);
    attn::Matrix<T> Q(T_q, d_k), K(T_v, d_k), V = attn::Matrix<T>::Ones(T_v, 1);
    for (int i = 0; i < T_q; ++i)
      for (int r = 0; r < d_k; ++r) Q(i, r) = static_cast<T>(unit(rng) * (huge(rng) ? magnitude : 1.0));
    for (int j = 0; j < T_v; ++j)
      for (int r = 0; r < d_k; ++r) K(j, r) = static_cast<T>(unit(rng) * (huge(rng) ? magnitude : 1.0));
    attn::Mask mask(T_q, T_v);
    for (int i = 0; i < T_q; ++i)
      for (int j = 0; j < T_v; ++j) mask(i, j) = masked(rng);
    const attn::ref::DMatrix Qd = Q.template cast<double>(), Kd = K.template cast<double>();
    // Keep away from the border, where rounding decides (the rule says so).
    bool near_border = false;
    for (int i = 0; i < T_q; ++i)
      for (int j = 0; j < T_v; ++j) {
        // In T, as the library evaluates it: NaN when two products overflow
        // with opposite signs part way, which no a-priori rule decides.
        const T t = (Q.row(i) * K.row(j).transpose())(0, 0);
        const double s = std::abs((Qd.row(i) * Kd.row(j).transpose())(0, 0)) / std::sqrt(double(d_k));
        if (std::isnan(t) || (std::isfinite(s) && s > max_finite / 4 && s < max_finite * 4))
          near_border = true;
      }
    if (near_border) continue;
    bool fully_masked = false;
    for (int i = 0; i < T_q; ++i) fully_masked = fully_masked || mask.row(i).all();
    if (fully_masked) continue;
    const auto rule = attn::ref::logit_rule(Qd, Kd, attn::ref::BoolMatrix(mask), max_finite);
    INFO("case " << c << ": T_q=" << T_q << " T_v=" << T_v << " d_k=" << d_k);
    try {
      const auto r = attn::attention<T>(Q, K, V, mask);
      CHECK_FALSE(rule);
      CHECK_FALSE(r.A.hasNaN());
      bool overflow_seen = false;
      const attn::Matrix<T> S = (Q * K.transpose()) / std::sqrt(T(d_k));
      for (int i = 0; i < T_q; ++i)
        for (int j = 0; j < T_v; ++j)
          if (!mask(i, j) && S(i, j) == -std::numeric_limits<T>::infinity()) {
            overflow_seen = true;
            CHECK(r.A(i, j) == T(0));
          }
      answered_with_overflow += overflow_seen;
    } catch (const attn::NonFiniteInputError& e) {
      REQUIRE(rule);
      ++refused;
      CHECK(e.row() == rule->row);
      if (rule->col >= 0) CHECK(e.col() == rule->col);
    }
  }
  // Both sides of the rule were reached.
  CHECK(refused > 20);
  CHECK(answered_with_overflow > 5);
}

}  // namespace

TEST_CASE("the library refuses overflowing logits exactly where the oracle's rule says - double",
          "[logit_rule]") {
  check_against_oracle<double>(1e160, 3000);
}

TEST_CASE("the library refuses overflowing logits exactly where the oracle's rule says - float",
          "[logit_rule]") {
  check_against_oracle<float>(1e21, 3000);
}

// Property: multi_head_attention in double agrees with the 50-digit oracle
// ref::exact_multi_head_attention (section 32.2.5: Q_i = X W_Q^i, K_i = X W_K^i,
// V_i = X W_V^i, O_i = attention(Q_i, K_i, V_i), O = [O_1, ..., O_h] W_O) within
// an a-priori bound, entry by entry.
//
// The tolerance (lib_prop_support.hpp, head_output_bound and multi_head_bound,
// where each step is written out) propagates Higham's gamma_n through:
//   the projections (gamma_{d_model} |X||W| per entry, they round on the 2^-44 grid),
//   the logits (gamma_{d_k+3}, plus the projections' error: c_L times the row's
//     largest |X||W_Q| |W_K|^T|X|^T / sqrt(d_k)),
//   the softmax (the row maximum's error cancels; each weight keeps a relative error
//     expm1(logit error + subtraction rounding) plus the exp's 2u, the normaliser
//     gamma_{T_v}, the division 2u),
//   A V (gamma_{T_v}, with the weights' and V's errors; sum_j a_j |V_jl| is bounded
//     by the largest allowed |V_jl|, since each output row is a convex combination),
//   and the output projection (gamma_{h d_v} |C^||W_O| plus |C^ - C||W_O|),
// times ref::kSafetyFactor = 2 (the bound is evaluated in double; exp taken as
// faithful). It is simple, not tight: it uses row maxima where the exact
// analysis (reference/TOLERANCE.md) uses the exact weights. It is still about
// u times the size of the data, so the second TEST_CASE shows it rejects a
// wrong implementation by many orders of magnitude.
#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <iomanip>
#include <iostream>
#include <random>

#include "lib_prop_support.hpp"

using namespace attn::libprop;
using attn::Index;

namespace {

/// The library's double result held against the oracle under multi_head_bound.
Comparison check_against_oracle(const DMatrix& computed, const DMatrix& X,
                                const attn::ref::MultiHeadWeights& w,
                                const std::optional<attn::Mask>& mask) {
  const attn::ref::RealMatrix exact = attn::ref::exact_multi_head_attention(X, X, w, mask);
  const DMatrix bound = multi_head_bound(X, w, mask, precision_of<double>());
  return compare_to_exact(computed, exact, bound);
}

/// h heads with their own d_k (1..8), a common d_v and W_O: (h d_v) x d_out.
attn::ref::MultiHeadWeights draw_weights(Index h, Index d_model, Index d_v, Index d_out, Values v,
                                         int s) {
  attn::ref::MultiHeadWeights w;
  for (Index i = 0; i < h; ++i) {
    const Index d_k = draw_size(8);
    w.heads.push_back({draw_matrix(d_model, d_k, v, s), draw_matrix(d_model, d_k, v, s),
                       draw_matrix(d_model, d_v, v, s)});
  }
  w.W_O = draw_matrix(h * d_v, d_out, v, s);
  return w;
}

}  // namespace

TEST_CASE("mha agrees with the exact multi-head attention within the derived bound (32.2.5)",
          "[lib][multi_head][oracle]") {
  double worst_ratio = 0;
  rc::prop("|multi_head_attention<double> - exact_multi_head_attention| <= bound", [&worst_ratio] {
    const Index h = draw_size(4), T_len = draw_size(8), d_model = draw_size(8);
    const Index d_v = draw_size(4), d_out = draw_size(8);
    RC_TAG("heads: h = " + std::to_string(h));
    const Values v = draw_values(true);
    const int s = int(*rc::gen::inRange(0, 4));
    const DMatrix X = draw_matrix(T_len, d_model, v);
    const attn::ref::MultiHeadWeights wd = draw_weights(h, d_model, d_v, d_out, v, s);
    const std::optional<attn::Mask> mask = draw_mask(T_len, T_len);
    log_inputs(X, wd, mask);

    const DMatrix O = attn::multi_head_attention<double>(X, to_lib_weights<double>(wd), mask);
    const Comparison c = check_against_oracle(O, X, wd, mask);
    if (c.ok) worst_ratio = std::max(worst_ratio, c.worst_ratio);
    if (!c.ok) RC_LOG() << describe(c) << "\n";
    RC_ASSERT(c.ok);
  });
  std::cout << "mha_against_oracle: largest error / bound over the run: " << std::setprecision(3)
            << worst_ratio << "\n";
}

namespace {

/// Reproducible inputs on the 2^-18 grid: k / 2^18 with |k| <= 2^18 (values in [-1, 1]).
DMatrix grid_matrix(Index rows, Index cols, std::mt19937_64& rng) {
  std::uniform_int_distribution<std::int64_t> k(-(std::int64_t{1} << 18), std::int64_t{1} << 18);
  DMatrix M(rows, cols);
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < cols; ++j) M(i, j) = std::ldexp(double(k(rng)), -18);
  return M;
}

/// The concatenation of per-head outputs, head_order[b] in block b, times W_O.
DMatrix concat_heads(const DMatrix& X, const attn::ref::MultiHeadWeights& w,
                     const std::optional<attn::Mask>& mask, const std::vector<std::size_t>& order,
                     double q_scale = 1.0) {
  const Index d_v = w.heads[0].W_V.cols();
  DMatrix C(X.rows(), Index(w.heads.size()) * d_v);
  for (std::size_t b = 0; b < order.size(); ++b) {
    const auto& hw = w.heads[order[b]];
    const DMatrix Q = (X * hw.W_Q) * q_scale;
    const DMatrix K = X * hw.W_K, V = X * hw.W_V;
    C.middleCols(Index(b) * d_v, d_v) = attn::attention<double>(Q, K, V, mask).O;
  }
  return C * w.W_O;
}

}  // namespace

TEST_CASE("mha oracle comparison rejects wrong implementations", "[lib][multi_head][oracle]") {
  // h = 3 heads with d_k = 4 (so a missing 1/sqrt(d_k) = 1/2 shows), d_v = 2,
  // d_model = 6, T = 5, d_out = 4; weights scaled by 1/2 so the softmax is not one-hot.
  const Index h = 3, T_len = 5, d_model = 6, d_k = 4, d_v = 2, d_out = 4;
  const attn::Mask causal = attn::causal_mask(T_len, T_len);
  for (std::uint64_t seed : {1u, 2u, 3u, 4u, 5u}) {
    std::mt19937_64 rng(seed);
    const DMatrix X = grid_matrix(T_len, d_model, rng);
    attn::ref::MultiHeadWeights w;
    for (Index i = 0; i < h; ++i)
      w.heads.push_back({grid_matrix(d_model, d_k, rng) / 2, grid_matrix(d_model, d_k, rng) / 2,
                         grid_matrix(d_model, d_v, rng) / 2});
    w.W_O = grid_matrix(h * d_v, d_out, rng);
    INFO("seed " << seed);
    for (const std::optional<attn::Mask>& mask : {std::optional<attn::Mask>(), std::optional(causal)}) {
      INFO((mask ? "causal mask" : "no mask"));
      // The control: the library itself is accepted.
      const DMatrix right = attn::multi_head_attention<double>(X, to_lib_weights<double>(w), mask);
      const Comparison ok = check_against_oracle(right, X, w, mask);
      INFO("library: " << describe(ok));
      CHECK(ok.ok);

      // Heads concatenated in reverse order.
      const Comparison reversed = check_against_oracle(concat_heads(X, w, mask, {2, 1, 0}), X, w, mask);
      INFO("reversed heads: " << describe(reversed));
      CHECK_FALSE(reversed.ok);
      CHECK(reversed.worst_ratio > 1e6);

      // No 1/sqrt(d_k): Q scaled by sqrt(d_k) = 2 undoes the library's scale.
      const Comparison unscaled =
          check_against_oracle(concat_heads(X, w, mask, {0, 1, 2}, 2.0), X, w, mask);
      INFO("no 1/sqrt(d_k): " << describe(unscaled));
      CHECK_FALSE(unscaled.ok);

      // Everything in float, answered as double (about 1e8 times the double bound).
      const attn::Matrix<float> in_float = attn::multi_head_attention<float>(
          X.cast<float>(), to_lib_weights<float>(w), mask);
      const Comparison single = check_against_oracle(in_float.cast<double>(), X, w, mask);
      INFO("computed in float: " << describe(single));
      CHECK_FALSE(single.ok);

      // Same head order but the causal mask dropped (only differs when masked).
      if (mask) {
        const Comparison unmasked =
            check_against_oracle(concat_heads(X, w, std::nullopt, {0, 1, 2}), X, w, mask);
        INFO("mask ignored: " << describe(unmasked));
        CHECK_FALSE(unmasked.ok);
      }
    }
  }
}

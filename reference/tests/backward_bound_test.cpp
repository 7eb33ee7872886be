// The a-priori bound of the backward pass (attention_backward_error_bound,
// TOLERANCE.md, "The backward pass"), two-sided: the library's naive and
// tiled backward, and a test-local naive and recomputing backward in 16-bit
// storage, stay within it with margin; planted bugs (D dropped, the scale
// missing from dQ, dV accumulated in bfloat16, the mask forgotten in the
// recomputed P) exceed it at least 10 times.
#include "attn/ref/backward_bound.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <type_traits>

#include "attn/attn.hpp"
#include "attn/ref/number_format.hpp"
#include "attn/ref/rounding.hpp"
#include "random_dyadic.hpp"

using attn::ref::BoolMatrix;
using attn::ref::DMatrix;
using attn::ref::NumberFormat;
using attn::ref::PrecisionModel;

namespace {

/// ATTNLAB_CASES_SCALE (a number > 0) times n, else n.
int scaled(int n) {
  const char* s = std::getenv("ATTNLAB_CASES_SCALE");
  const double f = s ? std::atof(s) : 1.0;
  return f > 0 ? std::max(1, int(n * f)) : n;
}

struct Case {
  DMatrix Q, K, V, dO;
  std::optional<BoolMatrix> mask;  // the causal mask folded in when causal
  std::optional<double> scale;
  std::string regime;
};

using attn::ref::test::dyadic;

/// A random case: shapes up to 16 (one in 40 a long row of 64 to 2048
/// keys), no mask, a random mask, causal or a padding mask, a given
/// scale or 1/sqrt(d_k), and one case in four with every logit offset by
/// the same amount far from 0 (a constant first column of Q and of K).
Case random_case(std::mt19937_64& rng, NumberFormat f) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const bool long_row = pick(0, 39) == 0;
  const std::ptrdiff_t T_q = long_row ? pick(1, 4) : pick(1, 16);
  const std::ptrdiff_t T_v = long_row ? std::ptrdiff_t(1) << pick(6, 11) : pick(1, 16);
  const std::ptrdiff_t d_k = pick(1, 8), d_v = pick(1, 8);
  Case c{dyadic(T_q, d_k, rng, f), dyadic(T_v, d_k, rng, f), dyadic(T_v, d_v, rng, f),
         dyadic(T_q, d_v, rng, f), std::nullopt, std::nullopt, long_row ? "long row" : "small"};
  const int scale_kind = pick(0, 4);
  if (scale_kind > 2) c.scale = scale_kind == 3 ? 0.125 : -0.5;
  if (pick(0, 3) == 0) {  // every logit offset by +-2^(a+b) times the scale
    const double a = std::ldexp(pick(0, 1) ? 1.0 : -1.0, pick(3, 6)), b = std::ldexp(1.0, pick(3, 6));
    c.Q.col(0).setConstant(a);
    c.K.col(0).setConstant(b);
    c.regime += ", logits offset";
  }
  switch (pick(0, 3)) {
    case 1: {
      BoolMatrix m(T_q, T_v);
      std::bernoulli_distribution forbid(0.5);
      for (std::ptrdiff_t i = 0; i < T_q; ++i)
        for (std::ptrdiff_t j = 0; j < T_v; ++j) m(i, j) = forbid(rng);
      c.mask = m;
      c.regime += ", random mask";
      break;
    }
    case 2: c.mask = attn::causal_mask(T_q, T_v, pick(0, 1) ? attn::CausalAlignment::top_left
                                                            : attn::CausalAlignment::bottom_right);
            c.regime += ", causal"; break;
    case 3: {
      BoolMatrix m = BoolMatrix::Constant(T_q, T_v, false);
      const std::ptrdiff_t keep = pick(1, int(T_v));
      m.rightCols(T_v - keep).setConstant(true);
      c.mask = m;
      c.regime += ", padding mask";
      break;
    }
    default: c.regime += ", no mask";
  }
  if (c.mask)  // a fully forbidden row is an error, not a case: allow its first key
    for (std::ptrdiff_t i = 0; i < T_q; ++i)
      if (c.mask->row(i).all()) (*c.mask)(i, 0) = false;
  return c;
}

/// The largest |got - exact| / bound over dQ, dK, dV; +Inf where an entry
/// with the bound 0 (an exact zero) is not exactly 0.
struct Ratio {
  double worst = 0;
  std::string where;
  double per_gradient[3] = {0, 0, 0};  ///< dQ, dK, dV

  /// "dQ a, dK b, dV c": each gradient's largest ratio.
  std::string split() const {
    return "dQ " + std::to_string(per_gradient[0]) + ", dK " + std::to_string(per_gradient[1]) +
           ", dV " + std::to_string(per_gradient[2]);
  }
};

void ratio(const attn::ref::ExactGradients& x, const attn::ref::AttentionBackwardBound& b,
           const DMatrix& dQ, const DMatrix& dK, const DMatrix& dV, const std::string& what,
           Ratio& r) {
  const attn::ref::RealMatrix* exact[3] = {&x.dQ, &x.dK, &x.dV};
  const DMatrix* got[3] = {&dQ, &dK, &dV};
  const DMatrix* bound[3] = {&b.dQ, &b.dK, &b.dV};
  for (int w = 0; w < 3; ++w) {
    const DMatrix want = attn::ref::to_double(*exact[w]);
    for (std::ptrdiff_t i = 0; i < want.rows(); ++i)
      for (std::ptrdiff_t j = 0; j < want.cols(); ++j) {
        const double err = std::abs((*got[w])(i, j) - want(i, j)), B = (*bound[w])(i, j);
        const double q = err == 0 ? 0 : B > 0 ? err / B : std::numeric_limits<double>::infinity();
        const double qq = std::isnan(err) ? std::numeric_limits<double>::infinity() : q;
        r.per_gradient[w] = std::max(r.per_gradient[w], qq);
        if (qq > r.worst)
          r.worst = qq,
          r.where = what + ": d" + "QKV"[w] + "(" + std::to_string(i) + ", " + std::to_string(j) + ")";
      }
  }
}

attn::AttentionOptions options_of(const Case& c) { return {c.scale, false, {}}; }

std::optional<attn::Mask> mask_of(const Case& c) {
  if (!c.mask) return std::nullopt;
  return attn::Mask(*c.mask);
}

/// The library's naive and tiled backward in T on case c: their worst
/// ratios to the bound (naive into r[0], tiled into r[1]).
template <class T>
void library_ratios(const Case& c, const attn::ref::ExactGradients& x, std::mt19937_64& rng,
                    Ratio (&r)[2]) {
  using M = attn::Matrix<T>;
  const M Q = c.Q.cast<T>(), K = c.K.cast<T>(), V = c.V.cast<T>(), dO = c.dO.cast<T>();
  PrecisionModel p = std::is_same_v<T, float> ? PrecisionModel::for_float() : PrecisionModel::for_double();
  const auto naive = attn::attention_backward<T>(Q, K, V, dO, mask_of(c), options_of(c));
  ratio(x, attn::ref::attention_backward_error_bound(c.Q, c.K, c.V, c.dO, x, p, c.scale),
        naive.dQ.template cast<double>(), naive.dK.template cast<double>(),
        naive.dV.template cast<double>(), c.regime, r[0]);
  std::uniform_int_distribution<attn::Index> tile_q(1, Q.rows() + 1), tile_k(1, K.rows() + 1);
  attn::TileSizes tiles;
  tiles.query = tile_q(rng);
  tiles.key = tile_k(rng);
  const auto fwd = attn::attention_tiled<T>(Q, K, V, mask_of(c), options_of(c), tiles);
  const auto tiled = attn::attention_backward_tiled<T>(Q, K, V, fwd.O, fwd.logsumexp, dO,
                                                       mask_of(c), options_of(c), tiles);
  // The forward's online softmax rescales once per key tile after the first ((2')).
  p.online_rescales = int((K.rows() + tiles.key - 1) / tiles.key) - 1;
  ratio(x, attn::ref::attention_backward_error_bound(c.Q, c.K, c.V, c.dO, x, p, c.scale),
        tiled.dQ.template cast<double>(), tiled.dK.template cast<double>(),
        tiled.dV.template cast<double>(),
        c.regime + ", tiles " + std::to_string(tiles.query) + " x " + std::to_string(tiles.key), r[1]);
}

}  // namespace

TEST_CASE("backward bound: the library's naive and tiled backward stay within it with margin",
          "[backward_bound]") {
  std::mt19937_64 rng(2626);
  const int cases = scaled(150);
  Ratio flt[2], dbl[2];
  for (int n = 0; n < cases; ++n) {
    const Case c = random_case(rng, NumberFormat::float32);
    const auto x = attn::ref::exact_attention_backward(c.Q, c.K, c.V, c.dO, c.mask, c.scale);
    library_ratios<float>(c, x, rng, flt);
    library_ratios<double>(c, x, rng, dbl);
  }
  const char* names[4] = {"naive, float", "tiled, float", "naive, double", "tiled, double"};
  const Ratio* all[4] = {&flt[0], &flt[1], &dbl[0], &dbl[1]};
  for (int k = 0; k < 4; ++k) {
    WARN(names[k] << ": largest error / bound " << all[k]->worst << " over " << cases
                  << " cases, at " << all[k]->where << " (" << all[k]->split() << ")");
    CHECK(all[k]->worst < 0.5);
  }
}

namespace {

/// The planted bugs of the test-local backward below.
enum class Bug { none, no_D, no_scale_in_dQ, dV_in_bfloat16, mask_forgotten };

struct Variant {
  bool recompute;        ///< P = exp(S - L) from its own logsumexp, else p / Z
  Bug bug;
  NumberFormat storage;  ///< P, dS and the results rounded to it; float32 arithmetic
};

struct Grads {
  DMatrix dQ, dK, dV;
};

/// P for case c in float arithmetic: the divide form, or recomputed from
/// the row's logsumexp L = m + log l (FlashAttention-2's order), stored.
DMatrix variant_weights(const Case& c, const Variant& v) {
  const std::ptrdiff_t T_q = c.Q.rows(), T_v = c.K.rows(), d_k = c.Q.cols();
  const float cs = c.scale ? float(*c.scale) : 1.0f / std::sqrt(float(d_k));
  auto allowed = [&](std::ptrdiff_t i, std::ptrdiff_t j) { return !c.mask || !(*c.mask)(i, j); };
  DMatrix P = DMatrix::Zero(T_q, T_v);
  std::vector<float> S(static_cast<std::size_t>(T_v), 0.0f);
  for (std::ptrdiff_t i = 0; i < T_q; ++i) {
    float m = -std::numeric_limits<float>::infinity(), l = 0;
    for (std::ptrdiff_t j = 0; j < T_v; ++j) {
      float s = 0;
      for (std::ptrdiff_t r = 0; r < d_k; ++r) s += float(c.Q(i, r)) * float(c.K(j, r));
      S[std::size_t(j)] = s * cs;
      if (allowed(i, j)) m = std::max(m, S[std::size_t(j)]);
    }
    for (std::ptrdiff_t j = 0; j < T_v; ++j)
      if (allowed(i, j)) l += std::exp(S[std::size_t(j)] - m);
    const float L = m + std::log(l);
    for (std::ptrdiff_t j = 0; j < T_v; ++j) {
      const bool use = allowed(i, j) || (v.recompute && v.bug == Bug::mask_forgotten);
      const float p = v.recompute ? std::exp(S[std::size_t(j)] - L) : std::exp(S[std::size_t(j)] - m) / l;
      P(i, j) = use ? attn::ref::round_to_format(v.storage, p) : 0.0;
    }
  }
  return P;
}

/// A backward pass from the definition in float arithmetic with the
/// variant's weights and bug; dS and the results rounded to v.storage.
Grads variant_backward(const Case& c, const Variant& v) {
  const std::ptrdiff_t T_q = c.Q.rows(), T_v = c.K.rows(), d_k = c.Q.cols(), d_v = c.V.cols();
  const float cs = c.scale ? float(*c.scale) : 1.0f / std::sqrt(float(d_k));
  auto store = [&](float x) { return attn::ref::round_to_format(v.storage, x); };
  const DMatrix P = variant_weights(c, v);
  Grads g{DMatrix(T_q, d_k), DMatrix(T_v, d_k), DMatrix(T_v, d_v)};
  for (std::ptrdiff_t j = 0; j < T_v; ++j)
    for (std::ptrdiff_t l = 0; l < d_v; ++l) {
      float acc = 0;
      for (std::ptrdiff_t i = 0; i < T_q; ++i) {
        acc += float(P(i, j)) * float(c.dO(i, l));
        if (v.bug == Bug::dV_in_bfloat16) acc = attn::ref::round_to_bfloat16(acc);
      }
      g.dV(j, l) = store(acc);
    }
  DMatrix dS(T_q, T_v);
  for (std::ptrdiff_t i = 0; i < T_q; ++i) {
    std::vector<float> dP(std::size_t(T_v), 0.0f);
    float D = 0;
    for (std::ptrdiff_t j = 0; j < T_v; ++j) {
      for (std::ptrdiff_t l = 0; l < d_v; ++l) dP[std::size_t(j)] += float(c.dO(i, l)) * float(c.V(j, l));
      D += float(P(i, j)) * dP[std::size_t(j)];
    }
    if (v.bug == Bug::no_D) D = 0;
    for (std::ptrdiff_t j = 0; j < T_v; ++j) dS(i, j) = store(float(P(i, j)) * (dP[std::size_t(j)] - D));
  }
  for (std::ptrdiff_t r = 0; r < d_k; ++r) {
    for (std::ptrdiff_t i = 0; i < T_q; ++i) {
      float acc = 0;
      for (std::ptrdiff_t j = 0; j < T_v; ++j) acc += float(dS(i, j)) * float(c.K(j, r));
      g.dQ(i, r) = store(v.bug == Bug::no_scale_in_dQ ? acc : acc * cs);
    }
    for (std::ptrdiff_t j = 0; j < T_v; ++j) {
      float acc = 0;
      for (std::ptrdiff_t i = 0; i < T_q; ++i) acc += float(dS(i, j)) * float(c.Q(i, r));
      g.dK(j, r) = store(acc * cs);
    }
  }
  return g;
}

/// The variant's worst ratio on case c, judged as a kernel of storage
/// v.storage accumulating in float32.
Ratio variant_ratio(const Case& c, const Variant& v) {
  const auto x = attn::ref::exact_attention_backward(c.Q, c.K, c.V, c.dO, c.mask, c.scale);
  const PrecisionModel p = PrecisionModel::for_formats(v.storage, NumberFormat::float32);
  const Grads g = variant_backward(c, v);
  Ratio r;
  ratio(x, attn::ref::attention_backward_error_bound(c.Q, c.K, c.V, c.dO, x, p, c.scale), g.dQ,
        g.dK, g.dV, c.regime, r);
  return r;
}

}  // namespace

TEST_CASE("backward bound: naive and recomputing backward in float32 and 16-bit storage stay within it",
          "[backward_bound]") {
  std::mt19937_64 rng(2627);
  const int cases = scaled(100);
  for (NumberFormat f : {NumberFormat::float32, NumberFormat::bfloat16, NumberFormat::float16})
    for (bool recompute : {false, true}) {
      Ratio worst;
      for (int n = 0; n < cases; ++n) {
        const Case c = random_case(rng, f);
        const Ratio r = variant_ratio(c, {recompute, Bug::none, f});
        for (int w = 0; w < 3; ++w)
          worst.per_gradient[w] = std::max(worst.per_gradient[w], r.per_gradient[w]);
        if (r.worst >= worst.worst) worst.worst = r.worst, worst.where = r.where;
      }
      WARN(attn::ref::format_name(f) << (recompute ? ", recomputing" : ", naive")
                                     << ": largest error / bound " << worst.worst << " over "
                                     << cases << " cases, at " << worst.where << " ("
                                     << worst.split() << ")");
      CHECK(worst.worst < 0.5);
    }
}

TEST_CASE("backward bound: planted bugs exceed it at least 10 times on every case", "[backward_bound]") {
  std::mt19937_64 rng(2628);
  // 8 x 8 heads, d = 4 (the scale 1/2 is not 1), half the entries forbidden.
  auto bug_case = [&]() {
    Case c;
    {
      c.Q = dyadic(8, 4, rng, NumberFormat::float32);
      c.K = dyadic(8, 4, rng, NumberFormat::float32);
      c.V = dyadic(8, 4, rng, NumberFormat::float32);
      c.dO = dyadic(8, 4, rng, NumberFormat::float32);
      c.scale = std::nullopt;
      BoolMatrix m(8, 8);
      std::bernoulli_distribution forbid(0.5);
      for (std::ptrdiff_t i = 0; i < 8; ++i)
        for (std::ptrdiff_t j = 0; j < 8; ++j) m(i, j) = forbid(rng) && j != i;
      c.mask = m;
      c.regime = "8 x 8, d 4, random mask";
    }
    return c;
  };
  const std::pair<Bug, const char*> bugs[] = {{Bug::no_D, "D dropped"},
                                              {Bug::no_scale_in_dQ, "scale missing from dQ"},
                                              {Bug::dV_in_bfloat16, "dV accumulated in bfloat16"},
                                              {Bug::mask_forgotten, "mask forgotten in the recomputed P"}};
  for (const auto& [bug, name] : bugs) {
    double least = std::numeric_limits<double>::infinity();
    for (int n = 0; n < scaled(20); ++n) {
      const Case c = bug_case();
      const Ratio r = variant_ratio(c, {bug == Bug::mask_forgotten, bug, NumberFormat::float32});
      INFO(name << " at " << r.where);
      CHECK(r.worst >= 10);
      least = std::min(least, r.worst);
    }
    WARN(name << ": smallest worst error / bound over the cases " << least);
  }
}


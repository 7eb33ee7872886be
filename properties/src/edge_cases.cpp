// The fixed edge cases, run after the random ones pass (edge_cases.hpp).
#include "edge_cases.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <tuple>

#include "attn/prop/generators.hpp"
#include "attn/ref/textbook.hpp"

namespace attn::prop::detail {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// x rounded to the subject's storage type (exact inputs; -Inf past its range).
double in_type(double x, const Precision& p) { return p.round(x); }

/// The lowest finite value of the subject's storage type.
double lowest(const Precision& p) { return -p.largest_finite(); }

/// "-2e+09" style text for a tag.
std::string level_text(double level, const Precision& p) {
  if (level == lowest(p))
    return std::string("the lowest finite ") +
           // A storage type narrower than its accumulation (the 16-bit ones)
           // by its format's name, the float and double presets by theirs.
           (ref::format_info(p.storage).default_accumulate != p.storage ? ref::format_name(p.storage)
                                                                        : p.name.c_str());
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0e", level);
  return buf;
}

/// One query, three keys: the allowed logits both at `level`, key 2
/// forbidden with logit 0 (a mask, or -inf in S for softmax_rows).
Case lowest_logits_case(Operation op, double level, const Precision& p) {
  Case c;
  c.op = op;
  const std::string tag = "edge: allowed logits at " + level_text(level, p);
  c.tags = {tag};
  Mask m(1, 3);
  m << false, false, true;
  if (op == Operation::attention) {
    // d_k = 1 and q = 1: the logits are K's entries exactly (sqrt(1) = 1).
    c.Q = DMatrix::Constant(1, 1, 1.0);
    c.K.resize(3, 1);
    c.K << level, level, 0.0;
    c.V.resize(3, 1);
    c.V << 1.0, 2.0, 4.0;
    c.mask = m;
  } else {
    c.S.resize(1, 3);
    c.S << level, level, op == Operation::softmax_rows ? -kInf : 0.0;
    if (op == Operation::masked_softmax) c.mask = m;
  }
  return c;
}

/// A NaN and an Inf input, each on a case with no mask whose other entries
/// are small integers: a NaN at Q(0, 0) (or S(0, 1)) and +Inf at V(1, 0) (or
/// S(1, 0)). The answer must refuse or carry the bad value into the
/// answer (oracle_agreement, check_non_finite_answer).
std::vector<Case> non_finite_cases(Operation op) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Case base;
  base.op = op;
  if (op == Operation::attention) {
    base.Q.resize(2, 2);
    base.Q << 1, 0, 0, 1;
    base.K.resize(2, 2);
    base.K << 1, 1, 0, 1;
    base.V.resize(2, 1);
    base.V << 1, 2;
  } else {
    base.S.resize(2, 2);
    base.S << 0, 1, 2, 0;
    if (op == Operation::masked_softmax) base.mask = Mask::Constant(2, 2, false);
  }
  Case with_nan = base, with_inf = base;
  (op == Operation::attention ? with_nan.Q(0, 0) : with_nan.S(0, 1)) = nan;
  (op == Operation::attention ? with_inf.V(1, 0) : with_inf.S(1, 0)) = kInf;
  with_nan.tags = {"edge: a NaN input"};
  with_inf.tags = {"edge: an Inf input"};
  return {with_nan, with_inf};
}

/// The head dim of the long edge cases: 64, or the declared one nearest to it.
Index long_edge_dim(const ShapeSpace& sp) {
  Index best = 64;
  for (std::size_t k = 0; k < sp.head_dims.size(); ++k)
    if (k == 0 || std::abs(sp.head_dims[k] - 64) < std::abs(best - 64)) best = sp.head_dims[k];
  return best;
}

/// Two long rows (T_v up to 2000, within the ShapeSpace), head dims 64:
/// nearly uniform weights, logits 0, -1/4, -1/2, -3/4 repeating on even
/// query rows and one leading key with the rest tied one below (logits 0,
/// -1, -1, ...; weights e^-1 = 0.37 of the first) on odd ones (a sum kept
/// in a narrow type stops growing, or rounds the same way at every step,
/// so Z comes out far off: bfloat16 from 256 on, float16 from 512; in
/// float16 a running sum of terms below 1/2 stops at 1024), and
/// logits rising along the keys (j / 64 for d_k = 64: the row maximum grows
/// in every tile, so an online softmax that forgets to rescale is far off).
/// V small integers; rounded to the subject's storage type. Empty when
/// max_seq is below kLongRowsFrom.
std::vector<Case> long_rows_cases(Operation op, const ShapeSpace& sp, const Precision& prec) {
  const Index tm = std::max<Index>(sp.tile_multiple, 1);
  // 2000 keys (or 8 fewer than max_seq): not a whole number of tiles of 32,
  // 64 or 128 keys, so a last partial tile is reached too.
  const Index T_v = std::min<Index>(2000, sp.max_seq - 8) / tm * tm, T_q = 2 * tm;
  if (T_v < kLongRowsFrom || T_q > sp.max_seq) return {};
  const Index d = long_edge_dim(sp);
  std::vector<Case> out;
  for (const bool rising : {false, true}) {
    Case c;
    c.op = op;
    c.tags = {rising ? "edge: long rows, logits rising along the keys" : "edge: long rows, nearly uniform weights or one key above ties"};
    // The logit of key j in query row i (pattern i % 2; one pattern when d_k is 1).
    const Index patterns = rising || d < 2 ? 1 : 2;
    auto logit = [rising](Index pattern, Index j) {
      if (rising) return double(j) / 64;
      return pattern == 0 ? -double(j % 4) / 4 : (j == 0 ? 0.0 : -1.0);
    };
    if (op == Operation::softmax_rows || op == Operation::masked_softmax) {
      c.S = DMatrix(T_q, T_v);
      for (Index i = 0; i < T_q; ++i)
        for (Index j = 0; j < T_v; ++j) c.S(i, j) = logit(i % patterns, j);
      if (op == Operation::masked_softmax) c.mask = Mask::Constant(T_q, T_v, false);
    } else {
      // Query row i is the unit vector e_{i % patterns}; key j holds pattern
      // k's logit in column k, times sqrt(d_k) = 8 for d_k = 64.
      const double root = std::sqrt(double(d));
      c.Q = DMatrix::Zero(T_q, d);
      c.K = DMatrix::Zero(T_v, d);
      c.V = DMatrix(T_v, d);
      for (Index i = 0; i < T_q; ++i) c.Q(i, i % patterns) = 1;
      for (Index j = 0; j < T_v; ++j) {
        for (Index k = 0; k < patterns; ++k) c.K(j, k) = root * logit(k, j);
        for (Index l = 0; l < d; ++l) c.V(j, l) = double((j * 7 + l * 3) % 9) - 4;
      }
    }
    round_to_precision(c, prec);
    out.push_back(std::move(c));
  }
  return out;
}

/// attention_backward's long rows (within the ShapeSpace, T_v at least
/// kBackwardLongFrom): 70 queries over 300 keys under a causal mask aligned
/// bottom-right (query i sees keys j <= i + 230), and 3 queries over 200
/// keys unmasked; head dims 4 (or the declared one nearest), logits within
/// [-1, 1] so the weights spread over every tile of 32, 64 or 128 keys, and
/// neither length a multiple of those tiles: a D_i or logsumexp kept per
/// tile is far off. Small-integer V and dO; exact in every storage type.
std::vector<Case> backward_long_cases(const ShapeSpace& sp, const Precision& prec) {
  const Index tm = std::max<Index>(sp.tile_multiple, 1);
  std::vector<Case> out;
  for (const auto& [want_q, want_v, causal] : {std::tuple<Index, Index, bool>{70, 300, true}, {3, 200, false}}) {
    const Index T_v = std::min(want_v, sp.max_seq) / tm * tm;
    const Index T_q = std::min((want_q + tm - 1) / tm * tm, T_v);
    if (T_v < kBackwardLongFrom || T_q < 1) continue;
    const Index d = sp.head_dims.empty() ? 4 : sp.head_dims.front();
    Case c;
    c.op = Operation::attention_backward;
    c.tags = {causal ? "edge: long backward rows, causal (bottom-right)" : "edge: long backward rows, no mask"};
    c.Q = DMatrix(T_q, d);
    c.K = DMatrix(T_v, d);
    c.V = DMatrix(T_v, d);
    c.dO = DMatrix(T_q, d);
    // Entries in [-1/2, 1/2] on a grid of 1/8: |logit| <= d / (4 sqrt(d)) <= 1 for d = 4.
    for (Index i = 0; i < T_q; ++i)
      for (Index l = 0; l < d; ++l) {
        c.Q(i, l) = double((i * 3 + l * 5) % 9 - 4) / 8;
        c.dO(i, l) = double((i * 5 + l * 2) % 7) - 3;
      }
    for (Index j = 0; j < T_v; ++j)
      for (Index l = 0; l < d; ++l) {
        c.K(j, l) = double((j * 7 + l * 3) % 9 - 4) / 8;
        c.V(j, l) = double((j * 7 + l * 3) % 9) - 4;
      }
    if (causal) {
      Mask M = Mask::Constant(T_q, T_v, false);
      for (Index i = 0; i < T_q; ++i)
        for (Index j = 0; j < T_v; ++j) M(i, j) = j > i + (T_v - T_q);
      c.mask = std::move(M);
    }
    round_to_precision(c, prec);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

std::vector<Case> edge_cases(const Property& p, const GenConfig& gc) {
  const Operation op = p.op;
  if (op == Operation::attention_backward)
    return p.edge_cases.long_rows ? backward_long_cases(gc.shapes, gc.precision) : std::vector<Case>{};
  if (op != Operation::softmax_rows && op != Operation::masked_softmax &&
      op != Operation::attention)
    return {};
  std::vector<Case> out;
  const Precision& prec = gc.precision;
  if (p.edge_cases.lowest_logits) {
    for (const double level : {-2e4, -2e9, -2e20, -3e38}) {
      const double v = in_type(level, prec);
      if (v > lowest(prec)) out.push_back(lowest_logits_case(op, v, prec));
    }
    out.push_back(lowest_logits_case(op, lowest(prec), prec));
  }
  if (p.edge_cases.non_finite)
    for (Case& c : non_finite_cases(op)) out.push_back(std::move(c));
  if (p.edge_cases.long_rows)
    for (Case& c : long_rows_cases(op, gc.shapes, prec)) out.push_back(std::move(c));
  if (p.edge_cases.lowest_logits &&
      (op == Operation::softmax_rows || op == Operation::masked_softmax)) {
    Case f2;
    f2.op = op;
    f2.S = ref::textbook::F2{}.S;  // [[0, 2, -inf], [1, -1, 0]]
    // GCC 12 warns that the disengaged optional's storage "may be used
    // uninitialized" when it is assigned (a false positive, GCC bug 80635);
    // the warning is off for this statement only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
    if (op == Operation::masked_softmax) f2.mask = Mask::Constant(2, 3, false);
#pragma GCC diagnostic pop
    f2.tags = {"edge: -inf in S (the text's F2 matrix)"};
    out.push_back(f2);
  }
  return out;
}

}  // namespace attn::prop::detail

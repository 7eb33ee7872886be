#include "attn/prop/generators.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "attn/prop/operation_table.hpp"

namespace attn::prop {

namespace {

/// Value regimes. The first one is where shrinking goes.
enum class Regime { small_integers, reals, large_logits, row_scales, zero_query, tied_keys, hugely_negative, offset_rows };

const char* regime_tag(Regime r) {
  switch (r) {
    case Regime::small_integers: return "values: small integers";
    case Regime::reals: return "values: reals in [-4, 4]";
    case Regime::large_logits: return "values: large logits (beyond exp's range unshifted)";
    case Regime::row_scales: return "values: rows of very different scale";
    case Regime::zero_query: return "values: zero Q (uniform weights)";
    case Regime::tied_keys: return "values: tied keys (equal logits)";
    case Regime::hugely_negative: return "values: every logit below -1e9";
    case Regime::offset_rows: return "values: rows offset by 32 to 256 (logits far from 0, close together)";
  }
  return "";
}

enum class MaskKind { none, causal, padding, random, forbidden_tile };

const char* mask_tag(MaskKind k) {
  switch (k) {
    case MaskKind::none: return "mask: none";
    case MaskKind::causal: return "mask: causal";
    case MaskKind::padding: return "mask: padding";
    case MaskKind::random: return "mask: random";
    case MaskKind::forbidden_tile: return "mask: a wholly forbidden key tile";
  }
  return "";
}

/// `first` in w_first cases of w_first + w_second, else `second`; unlike
/// rc::gen::weightedOneOf (whose choice never shrinks), a value of `second`
/// shrinks towards `first`.
template <typename T>
rc::Gen<T> first_or_second(int w_first, rc::Gen<T> first, int w_second, rc::Gen<T> second) {
  return rc::gen::mapcat(rc::gen::inRange(0, w_first + w_second),
                         [w_first, first, second](int k) { return k < w_first ? first : second; });
}

/// Integers shrinking towards 0 through 0, -1, 1, -2, 2, ...
rc::Gen<int> zigzag(int max_magnitude) {
  return rc::gen::map(rc::gen::inRange(0, 2 * max_magnitude + 1),
                      [](int z) { return (z % 2 == 0) ? z / 2 : -(z + 1) / 2; });
}

/// A value of the regime; all are exact in float (at most 21 significant bits).
rc::Gen<double> value_gen(Regime r) {
  switch (r) {
    case Regime::small_integers:
    case Regime::zero_query:
    case Regime::tied_keys:
      return rc::gen::map(zigzag(4), [](int k) { return double(k); });
    case Regime::reals:
    case Regime::row_scales:
    case Regime::large_logits:
    case Regime::hugely_negative:
    case Regime::offset_rows:
      // k / 2^18 for |k| <= 2^20: reals in [-4, 4] on a fine binary grid.
      return rc::gen::map(zigzag(1 << 20), [](int k) { return std::ldexp(double(k), -18); });
  }
  return rc::gen::just(0.0);
}

rc::Gen<DMatrix> matrix_gen(Index rows, Index cols, Regime r) {
  return rc::gen::map(rc::gen::container<std::vector<double>>(std::size_t(rows * cols), value_gen(r)),
                      [rows, cols](const std::vector<double>& v) {
                        DMatrix M(rows, cols);
                        for (Index i = 0; i < rows; ++i)
                          for (Index j = 0; j < cols; ++j) M(i, j) = v[std::size_t(i * cols + j)];
                        return M;
                      });
}

/// Mask of the kind; `row_choice` and `bits` feed padding lengths, random
/// masks and the forbidden row. Rows left with no allowed key are given one
/// back (key i mod T_v) unless the policy wants a fully forbidden row.
/// For forbidden_tile: the key tile [b tile_k, (b + 1) tile_k) with b chosen
/// from key_length is forbidden for the rows whose random bit in column 0 is set
/// (for every row when T_q = 1), so some rows skip a whole tile.
Mask build_mask(MaskKind kind, Index T_q, Index T_v, Index key_length, const std::vector<bool>& bits,
                Index tile_k, Index causal_offset = 0) {
  Mask M = Mask::Constant(T_q, T_v, false);
  for (Index i = 0; i < T_q; ++i)
    for (Index j = 0; j < T_v; ++j) {
      switch (kind) {
        case MaskKind::none: break;
        case MaskKind::causal: M(i, j) = j > i + causal_offset; break;
        case MaskKind::padding: M(i, j) = j >= key_length; break;
        case MaskKind::random: M(i, j) = bits[std::size_t(i * T_v + j)]; break;
        case MaskKind::forbidden_tile: {
          const Index b = (key_length - 1) / tile_k;
          M(i, j) = (T_q == 1 || bits[std::size_t(i * T_v)]) && j / tile_k == b;
          break;
        }
      }
    }
  for (Index i = 0; i < T_q; ++i)
    if (M.row(i).all()) M(i, i % T_v) = false;
  return M;
}

struct Shape {
  Index T_q, T_v, d_k, d_v;
};

std::vector<std::string> shape_tags(const Shape& s) {
  std::vector<std::string> tags;
  tags.push_back(s.T_q != s.T_v ? "shape: T_q != T_v" : "shape: T_q == T_v");
  if (s.d_k == 1) tags.push_back("shape: d_k = 1");
  if (s.T_q == 1 && s.T_v == 1) tags.push_back("shape: 1x1");
  if (s.T_q > 16 || s.T_v > 16) tags.push_back("shape: T beyond 16");
  return tags;
}

/// Dimensions up to the given bounds (exclusive), growing with RapidCheck's
/// size and shrinking towards 1.
rc::Gen<Shape> shape_in(Index max_T, Index max_dk, Index max_dv) {
  return rc::gen::map(rc::gen::tuple(rc::gen::inRange<Index>(1, max_T), rc::gen::inRange<Index>(1, max_T),
                                     rc::gen::inRange<Index>(1, max_dk), rc::gen::inRange<Index>(1, max_dv)),
                      [](const std::tuple<Index, Index, Index, Index>& t) {
                        return Shape{std::get<0>(t), std::get<1>(t), std::get<2>(t), std::get<3>(t)};
                      });
}

/// A drawn length k >= 1 made a multiple of the tile multiple, within max_seq.
Index fit_length(Index k, const ShapeSpace& sp) {
  const Index tm = std::max<Index>(sp.tile_multiple, 1);
  const Index most = std::max<Index>(sp.max_seq / tm, 1);
  return std::min(k, most) * tm;
}

/// A drawn head dim d >= 1 made one the subject takes: the d-th of the
/// declared ones (cyclically), so d = 1 shrinks to the smallest.
Index fit_head_dim(Index d, const ShapeSpace& sp) {
  if (sp.head_dims.empty()) return d;
  return sp.head_dims[std::size_t(d - 1) % sp.head_dims.size()];
}

Shape fit_shape(Shape s, const ShapeSpace& sp) {
  return Shape{fit_length(s.T_q, sp), fit_length(s.T_v, sp), fit_head_dim(s.d_k, sp),
               fit_head_dim(s.d_v, sp)};
}

/// Mostly T_q, T_v up to 16 (d_k up to 8, d_v up to 4); one case in ten up
/// to 32 x 32 with d_k up to 16, so that a fault that appears only past a
/// few rows or one tile is reached too. Shrinking goes to 1 either way.
/// Every shape is made to fit the ShapeSpace (fit_shape).
rc::Gen<Shape> shape_gen(const ShapeSpace& sp) {
  return rc::gen::map(rc::gen::weightedOneOf<Shape>({{9, shape_in(17, 9, 5)}, {1, shape_in(33, 17, 9)}}),
                      [sp](const Shape& s) { return fit_shape(s, sp); });
}

rc::Gen<MaskKind> mask_kind_gen(MaskPolicy policy, bool tiled) {
  if (tiled) {
    if (policy == MaskPolicy::masked)
      return rc::gen::element(MaskKind::causal, MaskKind::padding, MaskKind::random,
                              MaskKind::forbidden_tile);
    return rc::gen::element(MaskKind::none, MaskKind::causal, MaskKind::padding, MaskKind::random,
                            MaskKind::forbidden_tile);
  }
  if (policy == MaskPolicy::masked)
    return rc::gen::element(MaskKind::causal, MaskKind::padding, MaskKind::random);
  return rc::gen::element(MaskKind::none, MaskKind::causal, MaskKind::padding, MaskKind::random);
}

/// Scale factor of the large-logit regime: logits reach about +-700 or more in
/// double and beyond +-88 in float, where exp overflows without the max shift.
/// float16 and bfloat16 storage take float's scale: their logits are summed in float32
/// (or wider), and inputs up to 16 (logits up to 64) stay finite in float16.
double large_scale(const GenConfig& cfg) {
  return cfg.precision.storage == NumberFormat::float64 ? 16.0 : 4.0;
}

/// The mask part of a case: kind, padding length, random bits, forbidden row.
struct MaskDraw {
  MaskKind kind;
  Index key_length;
  std::vector<bool> bits;
  Index forbidden_row;
  /// Causal: key j is forbidden for query i when j > i + causal_offset (0:
  /// the text's top-left rule; T_v - T_q: bottom-right, as when decoding
  /// the last T_q tokens of a long sequence).
  Index causal_offset = 0;
};

rc::Gen<MaskDraw> mask_gen(Index T_q, Index T_v, MaskPolicy policy, bool tiled) {
  return rc::gen::map(
      rc::gen::tuple(mask_kind_gen(policy, tiled), rc::gen::inRange<Index>(1, T_v + 1),
                     rc::gen::container<std::vector<bool>>(std::size_t(T_q * T_v),
                                                           rc::gen::arbitrary<bool>()),
                     rc::gen::inRange<Index>(0, T_q)),
      [](const std::tuple<MaskKind, Index, std::vector<bool>, Index>& t) {
        return MaskDraw{std::get<0>(t), std::get<1>(t), std::get<2>(t), std::get<3>(t)};
      });
}

void apply_mask(Case& c, const MaskDraw& m, Index T_q, Index T_v, MaskPolicy policy) {
  const Index tile_k = c.tile_k > 0 ? c.tile_k : T_v;
  // The refusal policy may draw "none": it still needs a mask to forbid a row.
  if (m.kind == MaskKind::none && policy != MaskPolicy::fully_forbidden) {
    c.tags.push_back(mask_tag(MaskKind::none));
    return;
  }
  Mask M = build_mask(m.kind, T_q, T_v, m.key_length, m.bits, tile_k, m.causal_offset);
  c.tags.push_back(mask_tag(m.kind));
  // Tag a key tile wholly forbidden for a row that still has allowed keys elsewhere.
  if (c.tile_k > 0 && c.tile_k < T_v) {
    bool seen = false;
    for (Index i = 0; i < T_q && !seen; ++i)
      for (Index b = 0; b * tile_k < T_v && !seen; ++b)
        seen = !M.row(i).all() && M.row(i).segment(b * tile_k, std::min(tile_k, T_v - b * tile_k)).all();
    if (seen) c.tags.push_back("tiles: a key tile wholly forbidden for a row");
  }
  if (policy == MaskPolicy::fully_forbidden) {
    M.row(m.forbidden_row).setConstant(true);
    c.tags.push_back("mask: a fully forbidden row");
  }
  c.mask = std::move(M);
}

}  // namespace

void round_to_precision(Case& c, const Precision& p) {
  if (p.storage == NumberFormat::float64) return;
  std::vector<DMatrix*> all = {&c.Q, &c.K, &c.V, &c.S, &c.dO, &c.X, &c.W_O};
  for (HeadProjections& h : c.heads)
    for (DMatrix* M : {&h.W_Q, &h.W_K, &h.W_V}) all.push_back(M);
  for (DMatrix* M : all)
    for (Index i = 0; i < M->rows(); ++i)
      for (Index j = 0; j < M->cols(); ++j) (*M)(i, j) = p.round((*M)(i, j));
}

namespace {

/// Sizes of a multi-head case: h heads of d_k and d_v, T tokens of d_model, d_out outputs.
struct HeadsShape {
  Index h, T, d_model, d_k, d_v, d_out;
};

}  // namespace

rc::Gen<Case> gen_multi_head_case(const GenConfig& cfg, MaskPolicy policy, bool identity_W_O) {
  // h up to 4, T and d_model up to 8, d_k and d_v up to 4, d_out up to 8;
  // every size shrinks towards 1 (h towards 1 too: a fault of the head
  // order shows at h = 2).
  auto shape = rc::gen::map(
      rc::gen::tuple(rc::gen::inRange<Index>(1, 5), rc::gen::inRange<Index>(1, 9),
                     rc::gen::inRange<Index>(1, 9), rc::gen::inRange<Index>(1, 5),
                     rc::gen::inRange<Index>(1, 5), rc::gen::inRange<Index>(1, 9)),
      [](const std::tuple<Index, Index, Index, Index, Index, Index>& t) {
        return HeadsShape{std::get<0>(t), std::get<1>(t), std::get<2>(t),
                          std::get<3>(t), std::get<4>(t), std::get<5>(t)};
      });
  // Each value is a small integer or (one in four) a real on the 2^-18 grid;
  // a real shrinks towards a small integer, so counterexamples read easily.
  const auto value = rc::gen::weightedOneOf<double>(
      {{3, value_gen(Regime::small_integers)}, {1, value_gen(Regime::reals)}});
  return rc::gen::mapcat(
      rc::gen::tuple(shape, rc::gen::inRange(0, 4),
                     // Not scaled by RapidCheck's size: large logits from the first cases on.
                     rc::gen::resize(rc::kNominalSize, rc::gen::inRange(0, 5))),
      [cfg, policy, identity_W_O, value](const std::tuple<HeadsShape, int, int>& t) {
        const HeadsShape s = std::get<0>(t);
        // The weights are scaled by 2^-w (exact), so logits stay moderate
        // while X W still rounds in float.
        const int w = std::get<1>(t);
        // One case in five has X scaled by 32 (exact): logits beyond exp's
        // range (709 in double, 88 in float) unless the row maximum is subtracted.
        const bool large = std::get<2>(t) == 4;
        const Index count = s.T * s.d_model + s.h * 2 * s.d_model * s.d_k + s.h * s.d_v * s.d_out;
        // W_V has no zero entry (a zero shrinks to 1): a head whose output
        // shrinks to 0 would meet any block of W_O, and a counterexample could
        // no longer tell the heads' order from the blocks of W_O they meet.
        const auto nonzero = rc::gen::map(value, [](double x) { return x == 0 ? 1.0 : x; });
        return rc::gen::map(
            rc::gen::tuple(rc::gen::container<std::vector<double>>(std::size_t(count), value),
                           rc::gen::container<std::vector<double>>(
                               std::size_t(s.h * s.d_model * s.d_v), nonzero),
                           mask_gen(s.T, s.T, policy, false)),
            [cfg, policy, identity_W_O, s, w, large](
                const std::tuple<std::vector<double>, std::vector<double>, MaskDraw>& m) {
              const std::vector<double>& v = std::get<0>(m);
              const std::vector<double>& v_nonzero = std::get<1>(m);
              std::size_t next = 0, next_nonzero = 0;
              auto take = [&](Index rows, Index cols, double scale, bool from_nonzero = false) {
                DMatrix M(rows, cols);
                for (Index i = 0; i < rows; ++i)
                  for (Index j = 0; j < cols; ++j)
                    M(i, j) = (from_nonzero ? v_nonzero[next_nonzero++] : v[next++]) * scale;
                return M;
              };
              const double ws = std::ldexp(1.0, -w);
              Case c;
              c.op = Operation::multi_head_attention;
              c.X = take(s.T, s.d_model, large ? 32.0 : 1.0);
              for (Index k = 0; k < s.h; ++k) {
                HeadProjections hp;
                hp.W_Q = take(s.d_model, s.d_k, ws);
                hp.W_K = take(s.d_model, s.d_k, ws);
                hp.W_V = take(s.d_model, s.d_v, ws, /*from_nonzero=*/true);
                c.heads.push_back(std::move(hp));
              }
              c.W_O = identity_W_O ? DMatrix(DMatrix::Identity(s.h * s.d_v, s.h * s.d_v))
                                   : take(s.h * s.d_v, s.d_out, ws);
              c.tags.push_back(s.h == 1 ? "heads: 1" : "heads: 2 or more");
              if (s.d_model != s.d_k) c.tags.push_back("shape: d_model != d_k");
              auto real = [](double x) { return x != std::round(x); };
              const bool reals = std::any_of(v.begin(), v.end(), real) ||
                                 std::any_of(v_nonzero.begin(), v_nonzero.end(), real);
              c.tags.push_back(regime_tag(reals ? Regime::reals : Regime::small_integers));
              if (large) c.tags.push_back(regime_tag(Regime::large_logits));
              apply_mask(c, std::get<2>(m), s.T, s.T, policy);
              round_to_precision(c, cfg.precision);
              return c;
            });
      });
}

rc::Gen<Case> gen_mask_case(const GenConfig& cfg) {
  const Operation op = cfg.op;
  // Mostly 2 to 12 (the first branch, where shrinking goes): a 1x1 or 1xT
  // mask cannot tell most mistakes apart (a forbidden diagonal and an
  // inverted mask are both [x] at 1x1); one case in ten from 1, for faults
  // that only sizes of 1 show.
  auto sizes = [](Index from) {
    return rc::gen::tuple(rc::gen::inRange<Index>(from, 13), rc::gen::inRange<Index>(from, 13));
  };
  auto shape = rc::gen::weightedOneOf<std::tuple<Index, Index>>({{9, sizes(2)}, {1, sizes(1)}});
  return rc::gen::mapcat(
      rc::gen::map(rc::gen::tuple(shape, rc::gen::arbitrary<bool>()),
                   [](const std::tuple<std::tuple<Index, Index>, bool>& t) {
                     return std::make_tuple(std::get<0>(std::get<0>(t)),
                                            std::get<1>(std::get<0>(t)), std::get<1>(t));
                   }),
      [op](const std::tuple<Index, Index, bool>& t) {
        const Index T_q = std::get<0>(t), T_v = std::get<1>(t);
        return rc::gen::map(rc::gen::inRange<Index>(0, T_v + 1), [op, T_q, T_v, t](Index length) {
          Case c;
          c.op = op;
          c.mask_shape.T_q = T_q;
          c.mask_shape.T_v = T_v;
          c.tags.push_back(T_q != T_v ? "shape: T_q != T_v" : "shape: T_q == T_v");
          if (op == Operation::causal_mask) {
            c.mask_shape.bottom_right = std::get<2>(t);
            c.tags.push_back(c.mask_shape.bottom_right ? "causal: bottom-right" : "causal: top-left");
          } else {
            // Shrinks towards T_v (no padding), the simplest mask.
            c.mask_shape.key_length = T_v - length;
            c.tags.push_back(length == 0 ? "padding: none" : "padding: some keys");
          }
          return c;
        });
      });
}

namespace {

/// Cases with more numbers than this take their values from a seed: shrinking
/// them value by value would cost a call of the subject per value.
constexpr Index kShrunkNumbersAtMost = 2048;

/// The drawn parts of one attention or softmax case, before the regime is applied.
struct Draw {
  Shape shape;
  Regime regime;
  DMatrix Q, K, V, S;
  MaskDraw mask;
  std::vector<int> row_scales;  ///< 2^k per query row (row_scales regime)
  Index tile_q = 1, tile_k = 1;  ///< attention_tiled only
};

/// Q, K, V (or S) of the regime (values exact in float): large logits
/// scaled up, zero Q, tied keys, logits below -1e9, rows of different scale.
void apply_regime(Case& c, const GenConfig& cfg, const Draw& d) {
  const Shape& s = d.shape;
  const Regime r = d.regime;
  const double big = large_scale(cfg);
  if (takes_qkv(cfg.op)) {
    c.Q = d.Q;
    c.K = d.K;
    c.V = d.V;
    if (r == Regime::large_logits) {
      c.Q *= big;
      c.K *= big;
    }
    if (r == Regime::zero_query) c.Q.setZero();
    if (r == Regime::tied_keys)
      for (Index j = 1; j < s.T_v; ++j) c.K.row(j) = c.K.row(0);
    if (r == Regime::hugely_negative) {
      // Q <= -2^15 and K >= 2^15 entrywise: every logit is below
      // -2^30 sqrt(d_k), about -1.07e9, where a finite stand-in
      // for -inf (-1e4, -1e9) is no longer "very negative".
      // In a storage type whose largest finite value is below 5 2^15
      // (float16: 65504) the factor |x| + 1 in [1, 5] becomes |x| / 8 + 1
      // in [1, 1.5]: entries up to 49152, logits still below -2^30 sqrt(d_k).
      const double shrink = cfg.precision.largest_finite() < 5 * 0x1p15 ? 0.125 : 1.0;
      c.Q = -(c.Q.array().abs() * shrink + 1.0) * 0x1p15;
      c.K = (c.K.array().abs() * shrink + 1.0) * 0x1p15;
    }
    if (r == Regime::row_scales)
      for (Index i = 0; i < s.T_q; ++i) c.Q.row(i) *= std::ldexp(1.0, d.row_scales[std::size_t(i)]);
    if (r == Regime::offset_rows) {
      // Q's first column 2^(5..8) sqrt-free, K's 1: every logit of row i is
      // raised by the same 2^(5..8) / sqrt(d_k) (softmax does not change),
      // so the logits are far from 0 but close together: a logit rounded to
      // a narrow type, or a logsumexp rounded at the size of the maximum,
      // moves the weights by its error times the offset.
      for (Index i = 0; i < s.T_q; ++i) c.Q(i, 0) = std::ldexp(1.0, 5 + std::abs(d.row_scales[std::size_t(i)]) % 4);
      c.K.col(0).setOnes();
    }
    return;
  }
  c.S = d.S;
  // Logits: reals in [-4, 4], or scaled up to about +-1000 (double) / +-250 (float).
  if (r == Regime::large_logits) c.S *= big * big;
  if (r == Regime::zero_query) c.S.setZero();
  // A storage type that cannot hold -2^30 (float16) gets its logits in the
  // lowest finite value region instead, -(|x| / 8 + 1) 2^15 (exp of the gap
  // still underflows).
  if (r == Regime::hugely_negative)
    c.S = cfg.precision.largest_finite() < 0x1p30 ? DMatrix(-(c.S.array().abs() * 0.125 + 1.0) * 0x1p15)
                                                  : DMatrix(-(c.S.array().abs() + 1.0) * 0x1p30);
  if (r == Regime::tied_keys)
    for (Index j = 1; j < s.T_v; ++j) c.S.col(j) = c.S.col(0);
  if (r == Regime::row_scales)
    for (Index i = 0; i < s.T_q; ++i) c.S.row(i) *= std::ldexp(1.0, d.row_scales[std::size_t(i)]);
  if (r == Regime::offset_rows)
    for (Index i = 0; i < s.T_q; ++i)
      c.S.row(i).array() += std::ldexp(1.0, 5 + std::abs(d.row_scales[std::size_t(i)]) % 4);
}

/// The case of a draw: tiles, tags, regime, mask (or -Inf logits for
/// softmax_rows), rounded to the subject's storage type.
Case make_case(const GenConfig& cfg, MaskPolicy policy, const Draw& d) {
  const Shape& s = d.shape;
  Case c;
  c.op = cfg.op;
  if (cfg.op == Operation::attention_tiled) {
    c.tile_q = d.tile_q;
    c.tile_k = d.tile_k;
    c.tags.push_back(s.T_v % c.tile_k ? "tiles: tile_k does not divide T_v" : "tiles: tile_k divides T_v");
    if (c.tile_k > s.T_v) c.tags.push_back("tiles: tile_k > T_v");
  }
  for (auto& t : shape_tags(s)) c.tags.push_back(std::move(t));
  c.tags.push_back(regime_tag(d.regime));
  apply_regime(c, cfg, d);
  if (cfg.op != Operation::softmax_rows) {
    apply_mask(c, d.mask, s.T_q, s.T_v, policy);
  } else if (policy == MaskPolicy::masked) {
    // No mask argument: forbidden entries are -Inf logits.
    apply_mask(c, d.mask, s.T_q, s.T_v, policy);
    for (Index i = 0; i < s.T_q; ++i)
      for (Index j = 0; j < s.T_v; ++j)
        if ((*c.mask)(i, j)) c.S(i, j) = -std::numeric_limits<double>::infinity();
    c.mask.reset();
  } else if (policy == MaskPolicy::fully_forbidden) {
    // No mask argument: a row of -Inf logits is the fully forbidden row.
    c.S.row(d.mask.forbidden_row).setConstant(-std::numeric_limits<double>::infinity());
    c.tags.push_back("logits: a row of -Inf");
  }
  round_to_precision(c, cfg.precision);
  return c;
}

const auto all_regimes = [] {
  return rc::gen::element(Regime::small_integers, Regime::reals, Regime::large_logits, Regime::row_scales,
                          Regime::zero_query, Regime::tied_keys, Regime::hugely_negative, Regime::offset_rows);
};

Draw seeded_draw(const GenConfig& cfg, MaskPolicy policy, const Shape& s, Regime regime, MaskKind mask,
                 int key_percent, Index tile_q, Index tile_k, std::uint64_t seed);

/// Cases of shape s whose values come from a seed (seeded_draw).
rc::Gen<Case> gen_seeded_case(const GenConfig& cfg, MaskPolicy policy, const Shape& s, Regime r) {
  auto knobs = rc::gen::tuple(mask_kind_gen(policy, cfg.op == Operation::attention_tiled), rc::gen::inRange(1, 101),
                              rc::gen::inRange<Index>(1, s.T_q + 2), rc::gen::inRange<Index>(1, s.T_v + 2),
                              rc::gen::noShrink(rc::gen::arbitrary<std::uint64_t>()));
  using Knobs = std::tuple<MaskKind, int, Index, Index, std::uint64_t>;
  return rc::gen::map(knobs, [cfg, policy, s, r](const Knobs& k) {
    return make_case(cfg, policy,
                     seeded_draw(cfg, policy, s, r, std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k),
                                 std::get<4>(k)));
  });
}

/// Small cases (shape_gen): every value drawn and shrunk by RapidCheck, unless
/// the declared shapes make a case hold more than kShrunkNumbersAtMost
/// numbers (head dims of 64, tiles of 16 rows): then its values come from a
/// seed, and only its sizes shrink.
rc::Gen<Case> gen_small_case(const GenConfig& cfg, MaskPolicy policy) {
  return rc::gen::mapcat(
      rc::gen::tuple(shape_gen(cfg.shapes), all_regimes()), [cfg, policy](const std::tuple<Shape, Regime>& t) -> rc::Gen<Case> {
        const Shape s = std::get<0>(t);
        const Regime r = std::get<1>(t);
        const Index numbers = takes_qkv(cfg.op) ? (s.T_q + s.T_v) * s.d_k + s.T_v * s.d_v : s.T_q * s.T_v;
        if (numbers > kShrunkNumbersAtMost) return gen_seeded_case(cfg, policy, s, r);
        // Row scales 2^k, k in [-10, 10], for the row_scales regime.
        auto row_scales = rc::gen::container<std::vector<int>>(std::size_t(s.T_q), zigzag(10));
        return rc::gen::map(
            rc::gen::tuple(matrix_gen(s.T_q, s.d_k, r), matrix_gen(s.T_v, s.d_k, r),
                           matrix_gen(s.T_v, s.d_v, r), matrix_gen(s.T_q, s.T_v, r),
                           mask_gen(s.T_q, s.T_v, policy, cfg.op == Operation::attention_tiled),
                           row_scales, rc::gen::inRange<Index>(1, s.T_q + 2),
                           rc::gen::inRange<Index>(1, s.T_v + 2)),
            [cfg, policy, s, r](const std::tuple<DMatrix, DMatrix, DMatrix, DMatrix, MaskDraw,
                                                 std::vector<int>, Index, Index>& m) {
              // Tile sizes from 1 to T + 1: ones that divide T, ones that do not, one past it.
              return make_case(cfg, policy,
                               Draw{s, r, std::get<0>(m), std::get<1>(m), std::get<2>(m), std::get<3>(m),
                                    std::get<4>(m), std::get<5>(m), std::get<6>(m), std::get<7>(m)});
            });
      });
}

/// The sizes and knobs of a long-rows case; its values come from `seed`.
struct LongDraw {
  Index T_q, T_v;
  std::size_t d_k, d_v;  ///< indices into the head dims
  Regime regime;
  MaskKind mask;
  int key_percent;  ///< padding length as a share of T_v
  Index tile_q, tile_k;
  std::uint64_t seed;
};

/// The head dims of long cases: the declared ones, else 8 to 256.
std::vector<Index> long_head_dims(const ShapeSpace& sp) {
  return sp.head_dims.empty() ? std::vector<Index>{8, 16, 32, 64, 128, 256} : sp.head_dims;
}

/// A value of the regime's grid from the generator (as value_gen draws them).
double long_value(Regime r, std::mt19937_64& rng) {
  if (r == Regime::small_integers || r == Regime::zero_query || r == Regime::tied_keys)
    return double(std::uniform_int_distribution<int>(-4, 4)(rng));
  return std::ldexp(double(std::uniform_int_distribution<int>(-(1 << 20), 1 << 20)(rng)), -18);
}

/// A draw of the given shape whose values, mask bits and row scales come
/// from `seed` (nothing of them shrinks): for cases too large for RapidCheck
/// to shrink value by value.
Draw seeded_draw(const GenConfig& cfg, MaskPolicy policy, const Shape& s, Regime regime, MaskKind mask,
                 int key_percent, Index tile_q, Index tile_k, std::uint64_t seed) {
  Draw d;
  d.shape = s;
  d.regime = regime;
  std::mt19937_64 rng(seed);
  auto fill = [&](Index rows, Index cols) {
    DMatrix M(rows, cols);
    for (Index i = 0; i < rows; ++i)
      for (Index j = 0; j < cols; ++j) M(i, j) = long_value(regime, rng);
    return M;
  };
  if (takes_qkv(cfg.op)) {
    d.Q = fill(s.T_q, s.d_k);
    d.K = fill(s.T_v, s.d_k);
    d.V = fill(s.T_v, s.d_v);
  } else {
    d.S = fill(s.T_q, s.T_v);
  }
  d.mask.kind = policy == MaskPolicy::masked && mask == MaskKind::none ? MaskKind::causal : mask;
  d.mask.key_length = std::max<Index>(1, s.T_v * key_percent / 100);
  d.mask.bits.resize(std::size_t(s.T_q * s.T_v));
  for (std::size_t k = 0; k < d.mask.bits.size(); ++k) d.mask.bits[k] = (rng() & 1) != 0;
  d.mask.forbidden_row = Index(rng() % std::uint64_t(s.T_q));
  // Long rows with few queries: the causal mask is bottom-right aligned, so
  // the queries see (nearly) every key, as a decoder's last queries do.
  if (s.T_v >= kLongRowsFrom && s.T_v > s.T_q) d.mask.causal_offset = s.T_v - s.T_q;
  for (Index i = 0; i < s.T_q; ++i) d.row_scales.push_back(std::uniform_int_distribution<int>(-10, 10)(rng));
  d.tile_q = tile_q;
  d.tile_k = tile_k;
  return d;
}

/// The draw of a long case: its shape within the budget, values from the seed.
Draw long_draw(const GenConfig& cfg, MaskPolicy policy, const LongDraw& l) {
  const ShapeSpace& sp = cfg.shapes;
  const std::vector<Index> dims = long_head_dims(sp);
  std::size_t ik = std::min(l.d_k, dims.size() - 1), iv = std::min(l.d_v, dims.size() - 1);
  const Index tm = std::max<Index>(sp.tile_multiple, 1);
  Index T_v = fit_length((l.T_v + tm - 1) / tm, sp);
  // At most kLongEntries numbers in K and V together (what a kernel is sent
  // per call): the larger head dim steps down first, then T_v.
  while (T_v * (dims[ik] + dims[iv]) > kLongEntries && (ik > 0 || iv > 0))
    (dims[ik] >= dims[iv] && ik > 0 ? ik : iv) -= 1;
  if (T_v * (dims[ik] + dims[iv]) > kLongEntries)
    T_v = std::max<Index>(tm, kLongEntries / (dims[ik] + dims[iv]) / tm * tm);
  const Shape s{fit_length(l.T_q, sp), T_v, dims[ik], dims[iv]};
  return seeded_draw(cfg, policy, s, l.regime, l.mask, l.key_percent, l.tile_q, l.tile_k, l.seed);
}

/// Long rows: T_q from 1 to 4, T_v from 64 to max_seq, head dims from
/// long_head_dims; only the sizes and knobs shrink (the values come from a
/// seed that does not), so a failure shrinks in a few steps.
rc::Gen<Case> gen_long_case(const GenConfig& cfg, MaskPolicy policy) {
  const bool tiled = cfg.op == Operation::attention_tiled;
  const std::size_t n_dims = long_head_dims(cfg.shapes).size();
  auto knobs = rc::gen::tuple(
      // T_v mostly from kLongRowsFrom on; the short branch is where a long
      // failure shrinks to (the oneOf's index shrinks towards it), so a
      // counterexample that does not need the length comes out small.
      rc::gen::inRange<Index>(1, 5),
      first_or_second(1, rc::gen::inRange<Index>(1, kLongRowsFrom), kLongRowsOneIn - 1,
                      rc::gen::inRange<Index>(kLongRowsFrom, cfg.shapes.max_seq + 1)),
      rc::gen::inRange<std::size_t>(0, n_dims), rc::gen::inRange<std::size_t>(0, n_dims), all_regimes(),
      mask_kind_gen(policy, tiled), rc::gen::inRange(1, 101), rc::gen::element<Index>(1, 4, 16, 64),
      rc::gen::element<Index>(64, 128, 16, 32), rc::gen::noShrink(rc::gen::arbitrary<std::uint64_t>()));
  using Knobs = std::tuple<Index, Index, std::size_t, std::size_t, Regime, MaskKind, int, Index, Index,
                           std::uint64_t>;
  return rc::gen::map(knobs, [cfg, policy](const Knobs& k) {
    const LongDraw l{std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k), std::get<4>(k),
                     std::get<5>(k), std::get<6>(k), std::get<7>(k), std::get<8>(k), std::get<9>(k)};
    Case c = make_case(cfg, policy, long_draw(cfg, policy, l));
    const Index T_v = takes_qkv(c.op) ? c.K.rows() : c.S.cols();
    if (T_v >= kLongRowsFrom) c.tags.push_back("shape: long rows (T_v from 64)");
    if (takes_qkv(c.op) && c.K.cols() >= 64) c.tags.push_back("shape: head dim from 64");
    return c;
  });
}

/// dO of a case: T_q x d_v small integers (the small_integers regime) or
/// reals in [-4, 4], from `rng`.
DMatrix seeded_dO(Index T_q, Index d_v, Regime r, std::mt19937_64& rng) {
  DMatrix dO(T_q, d_v);
  for (Index i = 0; i < T_q; ++i)
    for (Index l = 0; l < d_v; ++l) dO(i, l) = long_value(r == Regime::small_integers ? r : Regime::reals, rng);
  return dO;
}

/// attention_backward's long rows (kBackwardLongFrom to kBackwardLongTo
/// keys, within max_seq): T_v and, in half the cases, T_q span several
/// tiles of 32, 64 or 128 and mostly end inside one, so a D_i or a
/// logsumexp kept per tile is reached; the other half has T_q from 1 to 4
/// (decoding). Head dims 1 to 4 (the declared ones when given), values
/// (Q, K, V and dO) from a seed in a regime whose weights spread over many
/// keys; masks as for the small cases (causal bottom-right aligned when
/// T_v > T_q). Only the sizes and knobs shrink, towards T_v = kBackwardLongFrom.
rc::Gen<Case> gen_backward_long_case(const GenConfig& cfg, MaskPolicy policy) {
  const ShapeSpace& sp = cfg.shapes;
  const Index most = std::min(sp.max_seq, kBackwardLongTo);
  auto knobs = rc::gen::tuple(
      first_or_second(1, rc::gen::inRange<Index>(1, 5), 1, rc::gen::inRange<Index>(kBackwardLongFrom, most + 1)),
      rc::gen::inRange<Index>(kBackwardLongFrom, most + 1), rc::gen::inRange<Index>(1, 5),
      rc::gen::inRange<Index>(1, 5),
      rc::gen::element(Regime::small_integers, Regime::reals, Regime::zero_query, Regime::offset_rows),
      mask_kind_gen(policy, false), rc::gen::inRange(1, 101),
      rc::gen::noShrink(rc::gen::arbitrary<std::uint64_t>()));
  using Knobs = std::tuple<Index, Index, Index, Index, Regime, MaskKind, int, std::uint64_t>;
  return rc::gen::map(knobs, [cfg, policy](const Knobs& k) {
    const ShapeSpace& space = cfg.shapes;
    const Index tm = std::max<Index>(space.tile_multiple, 1);
    const Shape s{fit_length((std::get<0>(k) + tm - 1) / tm, space), fit_length((std::get<1>(k) + tm - 1) / tm, space),
                  fit_head_dim(std::get<2>(k), space), fit_head_dim(std::get<3>(k), space)};
    const Regime r = std::get<4>(k);
    const std::uint64_t seed = std::get<7>(k);
    Case c = make_case(cfg, policy, seeded_draw(cfg, policy, s, r, std::get<5>(k), std::get<6>(k), 1, 1, seed));
    std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ULL);  // dO's values, apart from Q, K and V's
    c.dO = seeded_dO(s.T_q, s.d_v, r, rng);
    round_to_precision(c, cfg.precision);
    c.tags.push_back("shape: long backward rows (T_v from 65: several tiles of 32 to 128)");
    if (s.T_q >= kBackwardLongFrom) c.tags.push_back("shape: T_q from 65 (several query tiles)");
    return c;
  });
}

/// attention_backward: a small attention case (T_q, T_v below
/// kLongRowsFrom) with dO drawn as small integers or reals in [-4, 4],
/// rounded to the storage type, and, when max_seq reaches
/// kBackwardLongFrom, one case in kBackwardLongOneIn a long one
/// (gen_backward_long_case); no tiles (the library's naive backward;
/// backward_tiled_equals_naive sets them).
rc::Gen<Case> gen_backward_case(const GenConfig& cfg, MaskPolicy policy) {
  GenConfig small = cfg;
  small.shapes.max_seq = std::min(cfg.shapes.max_seq, kLongRowsFrom - 1);
  auto short_cases = rc::gen::mapcat(gen_small_case(small, policy), [cfg](const Case& base) {
    const Index T_q = base.Q.rows(), d_v = base.V.cols();
    return rc::gen::map(
        first_or_second(1, matrix_gen(T_q, d_v, Regime::small_integers), 1,
                        matrix_gen(T_q, d_v, Regime::reals)),
        [base, cfg](const DMatrix& dO) {
          Case c = base;
          c.dO = dO;
          round_to_precision(c, cfg.precision);
          return c;
        });
  });
  if (cfg.shapes.max_seq < kBackwardLongFrom) return short_cases;
  return first_or_second(kBackwardLongOneIn - 1, short_cases, 1, gen_backward_long_case(cfg, policy));
}

}  // namespace

namespace {

/// Q, K, V or S cases (attention, attention_tiled, masked_softmax,
/// softmax_rows): small ones, and one in kLongRowsOneIn a long-rows case.
rc::Gen<Case> gen_matrix_case(const GenConfig& cfg, MaskPolicy policy) {
  if (cfg.shapes.max_seq < kLongRowsFrom) return gen_small_case(cfg, policy);
  return first_or_second(kLongRowsOneIn - 1, gen_small_case(cfg, policy), 1, gen_long_case(cfg, policy));
}

rc::Gen<Case> gen_multi_head_drawn_W_O(const GenConfig& cfg, MaskPolicy policy) {
  return gen_multi_head_case(cfg, policy, false);
}

/// The mask builders' cases have no mask to draw: the policy does not apply.
rc::Gen<Case> gen_mask_case_any_policy(const GenConfig& cfg, MaskPolicy) { return gen_mask_case(cfg); }

/// The policy as the batched generator's focus.
rc::Gen<Case> gen_batched_by_policy(const GenConfig& cfg, MaskPolicy policy) {
  return gen_batched_case(cfg, policy == MaskPolicy::fully_forbidden ? BatchedFocus::fully_forbidden
                               : policy == MaskPolicy::masked        ? BatchedFocus::broadcast_mask
                                                                     : BatchedFocus::any);
}

/// Each operation's generator (its hook beside its OperationSpec row): one
/// row per enumerator, in the enumerator's order (checked below).
struct OperationGenerator {
  Operation op;
  rc::Gen<Case> (*generate)(const GenConfig& cfg, MaskPolicy policy);
};
constexpr OperationGenerator kOperationGenerators[] = {
    {Operation::softmax_rows, gen_matrix_case},
    {Operation::masked_softmax, gen_matrix_case},
    {Operation::attention, gen_matrix_case},
    {Operation::attention_tiled, gen_matrix_case},
    {Operation::multi_head_attention, gen_multi_head_drawn_W_O},
    {Operation::causal_mask, gen_mask_case_any_policy},
    {Operation::padding_mask, gen_mask_case_any_policy},
    {Operation::batched_attention, gen_batched_by_policy},
    {Operation::attention_backward, gen_backward_case},
};

static_assert(detail::one_row_per_operation(kOperationGenerators),
              "kOperationGenerators: one row per OperationSpec, in the enumerator's order");

}  // namespace

rc::Gen<Case> gen_case(const GenConfig& cfg, MaskPolicy policy) {
  return detail::row_of(kOperationGenerators, cfg.op).generate(cfg, policy);
}

rc::Gen<Case> gen_dk_mismatch_case(const GenConfig& cfg) {
  return rc::gen::mapcat(
      rc::gen::tuple(shape_gen(cfg.shapes), rc::gen::inRange<Index>(1, 4), rc::gen::arbitrary<bool>()),
      [cfg](const std::tuple<Shape, Index, bool>& t) {
        const Shape s = std::get<0>(t);
        // d_k' = d_k + delta or d_k - delta (when that stays >= 1).
        Index d_k2 = s.d_k + std::get<1>(t);
        if (std::get<2>(t) && s.d_k - std::get<1>(t) >= 1) d_k2 = s.d_k - std::get<1>(t);
        return rc::gen::map(
            rc::gen::tuple(matrix_gen(s.T_q, s.d_k, Regime::small_integers),
                           matrix_gen(s.T_v, d_k2, Regime::small_integers),
                           matrix_gen(s.T_v, s.d_v, Regime::small_integers)),
            [cfg, s](const std::tuple<DMatrix, DMatrix, DMatrix>& m) {
              Case c;
              c.op = cfg.op;
              if (cfg.op == Operation::attention_tiled) c.tile_q = c.tile_k = 2;
              c.Q = std::get<0>(m);
              c.K = std::get<1>(m);
              c.V = std::get<2>(m);
              c.tags = shape_tags(s);
              c.tags.push_back("shape: d_k of K differs from Q");
              round_to_precision(c, cfg.precision);
              return c;
            });
      });
}

rc::Gen<double> integer_values(int max_magnitude) {
  return rc::gen::map(zigzag(max_magnitude), [](int k) { return double(k); });
}

rc::Gen<Case> with_params(rc::Gen<Case> base, std::function<std::size_t(const Case&)> count,
                          rc::Gen<double> value) {
  return rc::gen::mapcat(base, [count, value](const Case& c) {
    // Many parameters (a long row's permutation keys) do not shrink: each
    // would cost a call of the subject, and they are not what a reader needs.
    const std::size_t n = count(c);
    auto params = rc::gen::container<std::vector<double>>(n, value);
    return rc::gen::map(n > 64 ? rc::gen::noShrink(params) : params,
                        [c](const std::vector<double>& params) {
                          Case out = c;
                          out.params = params;
                          return out;
                        });
  });
}

}  // namespace attn::prop

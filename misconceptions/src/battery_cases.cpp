// Candidate battery cases (battery_cases.hpp). Values are multiples of 1/4
// of modest size (exact in every format) unless a regime needs large ones;
// sizes keep d_k, d_v, T_v (and d_model) distinct and above 1 so that every
// scale factor differs, T_q != T_v so that a transposition shows, and masks
// non-symmetric with an allowed and a forbidden key per row.
#include "battery_cases.hpp"

#include <cmath>
#include <cstddef>
#include <limits>

#include "attn/prop/operation_table.hpp"

namespace attn::mis::detail {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Deterministic values in {-2, -1.75, ..., 2} (a fixed linear congruential sequence).
struct Quarters {
  std::uint64_t s;
  explicit Quarters(std::uint64_t seed) : s(seed) {}
  double next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return double(int((s >> 33) % 17) - 8) / 4.0;
  }
  DMatrix matrix(Index r, Index c, double scale = 1) {
    DMatrix M(r, c);
    for (Index i = 0; i < r; ++i)
      for (Index j = 0; j < c; ++j) M(i, j) = next() * scale;
    return M;
  }
};

Mask mask_from(std::initializer_list<std::initializer_list<int>> rows) {
  Mask M(Index(rows.size()), Index(rows.begin()->size()));
  Index i = 0;
  for (const auto& r : rows) {
    Index j = 0;
    for (int x : r) M(i, j++) = x != 0;
    ++i;
  }
  return M;
}

/// Rounds M's entries to the declared type (exact for a float subject);
/// false if a finite entry does not fit (overflows).
bool fit_to(DMatrix& M, const Precision& p) {
  if (p.storage == attn::prop::NumberFormat::float64) return true;
  for (Index i = 0; i < M.rows(); ++i)
    for (Index j = 0; j < M.cols(); ++j) {
      const double x = M(i, j);
      if (!std::isfinite(x)) continue;
      const double r = p.round(x);
      if (!std::isfinite(r)) return false;
      M(i, j) = r;
    }
  return true;
}

bool fit_to(Case& c, const Precision& p) {
  bool ok = fit_to(c.S, p) && fit_to(c.Q, p) && fit_to(c.K, p) && fit_to(c.V, p) &&
            fit_to(c.X, p) && fit_to(c.W_O, p);
  for (auto& h : c.heads) ok = ok && fit_to(h.W_Q, p) && fit_to(h.W_K, p) && fit_to(h.W_V, p);
  return ok;
}

/// Logit levels between consecutive candidate fills and floors (README.md):
/// a row at each level tells the fills above it from those below. Two
/// groups: the levels float32 (and bfloat16) hold, and those only float64
/// holds (-1e100, -1e305, for a declared float64 storage). Each group is a
/// case of its own: an input past a narrower type's range leaves that
/// type's models (low_precision) without a claim on the whole case, so one
/// case with both would hide every level from them (a float32 computation
/// is then not told from any fill or floor those rows tell apart).
std::vector<std::vector<double>> levels(const Precision& p) {
  // (-1e19: a -1e18 fill, OpenNMT's and gluon-nlp's fill_then_zeroed, from max_floor's -1e20;
  // -1e17: -9e15 from -1e18.)
  std::vector<double> v = {-10, -1000, -2e4, -1e6, -2e8, -2e9, -1e15, -1e17, -1e19, -2e25, -2e35, -3e38};
  // Only the levels the storage type holds (float16 stops below 65504).
  std::erase_if(v, [&](double x) { return -x > p.largest_finite(); });
  std::vector<std::vector<double>> groups = {v};
  if (p.storage == attn::prop::NumberFormat::float64) groups.push_back({-1e100, -1e305});
  return groups;
}

// -- logits operations -------------------------------------------------------

std::vector<Case> logits_cases(Operation op, const Precision& p) {
  std::vector<Case> out;
  const bool masked = (attn::prop::operation_spec(op).inputs & attn::prop::input::mask) != 0;
  Quarters q(7);
  auto base = [&](DMatrix S, std::optional<Mask> m, const char* tag) {
    Case c;
    c.op = op;
    c.S = std::move(S);
    if (masked) c.mask = std::move(m);
    c.tags = {tag};
    out.push_back(c);
  };
  const Mask m35 = mask_from({{0, 1, 0, 0, 1}, {1, 0, 0, 1, 1}, {0, 0, 1, 0, 0}});
  base(q.matrix(3, 5, 1.5), m35, "generic");
  base(q.matrix(4, 4, 1.5), mask_from({{0, 1, 1, 0}, {0, 0, 1, 1}, {1, 0, 0, 0}, {0, 1, 0, 0}}),
       "square, non-symmetric mask");
  {  // rows of very different scale: overflow without a shift; a global max underflows row 1
    DMatrix S(3, 4);
    S << 1000, 990, 1001.5, 995, 0.5, -0.25, 1, 0, -1000, -1001, -999.5, -1002;
    base(S, mask_from({{0, 1, 0, 0}, {1, 0, 0, 0}, {0, 0, 1, 0}}), "large logits");
  }
  {  // one dominant logit: Z = 1 exactly, an epsilon shows
    DMatrix S(2, 3);
    S << 0, -800, -900, 0.5, -850, -1000;
    base(S, mask_from({{0, 0, 1}, {0, 1, 0}}), "dominant logit");
  }
  for (const std::vector<double>& lv : levels(p)) {  // levels: fills and floors
    DMatrix S(Index(lv.size()), 4);
    Mask M(Index(lv.size()), 4);
    for (Index i = 0; i < S.rows(); ++i)
      for (Index j = 0; j < 4; ++j) {
        S(i, j) = lv[std::size_t(i)] * (1 + double(j) / 64);
        M(i, j) = j % 2 == 1;
      }
    base(S, M, "levels, masked");
    if (masked) base(S, Mask::Constant(S.rows(), 4, false), "levels, no key masked");
    else base(S, std::nullopt, "levels");
  }
  if (masked) {
    DMatrix S(2, 4);
    S << 1000, 0.5, -0.25, 1, 0.25, 1200, -1, 0;
    base(S, mask_from({{1, 0, 0, 0}, {0, 1, 0, 0}}), "large forbidden logit");
    DMatrix T(2, 3);
    T << 0.5, 1, -0.5, 0.25, -0.75, 1.5;
    base(T, mask_from({{0, 1, 0}, {1, 1, 1}}), "fully forbidden row");
  } else {
    DMatrix S(3, 4);
    S << 0.5, -kInf, 1, -kInf, -kInf, 0.25, -0.5, 1.5, -kInf, -kInf, -kInf, -kInf;
    base(S, std::nullopt, "-inf logits, fully -inf row");
    DMatrix T(2, 4);
    T << 0.5, -kInf, 1, -kInf, -kInf, 0.25, -0.5, 1.5;
    base(T, std::nullopt, "-inf logits");
  }
  DMatrix N = q.matrix(2, 3);
  N(1, 1) = std::numeric_limits<double>::quiet_NaN();
  base(N, Mask::Constant(2, 3, false), "NaN input");
  return out;
}

// -- attention, attention_tiled ---------------------------------------------

std::vector<Case> qkv_cases(Operation op, const Precision& p) {
  std::vector<Case> out;
  Quarters q(11);
  auto add = [&](DMatrix Q, DMatrix K, DMatrix V, std::optional<Mask> m, Index tile_k,
                 const char* tag) {
    Case c;
    c.op = op;
    c.Q = std::move(Q);
    c.K = std::move(K);
    c.V = std::move(V);
    c.mask = std::move(m);
    c.tile_q = 2;
    c.tile_k = tile_k;
    c.tags = {tag};
    out.push_back(c);
  };
  // T_q 3, T_v 6, d_k 4, d_v 3: 1/sqrt(d_k) = 1/2, 1/d_k, 1/sqrt(3), 1/sqrt(6) all differ.
  const Mask m36 = mask_from({{1, 1, 1, 1, 0, 1}, {0, 1, 0, 0, 1, 1}, {1, 0, 0, 1, 0, 0}});
  const DMatrix Q = q.matrix(3, 4, 1.5), K = q.matrix(6, 4, 1.5), V = q.matrix(6, 3);
  add(Q, K, V, m36, 4, "generic");
  add(Q, K, V, std::nullopt, 4, "generic, no mask");
  add(q.matrix(4, 2, 2), q.matrix(4, 2, 2), q.matrix(4, 2),
      mask_from({{0, 1, 1, 0}, {0, 0, 1, 1}, {1, 0, 0, 0}, {0, 1, 0, 0}}), 3,
      "square, non-symmetric mask");
  {  // large logits, increasing across key tiles; a row of small scale
    DMatrix Ql(3, 1), Kl(4, 1);
    Ql << 30, 0.25, -30;
    Kl << -20, 10, 33, 40;
    add(Ql, Kl, q.matrix(4, 2), std::nullopt, 2, "large logits");
  }
  {  // one dominant logit: Z = 1, an epsilon shows
    DMatrix Qd(2, 1), Kd(3, 1);
    Qd << 1, -1;
    Kd << 0, -800, 900;
    add(Qd, Kd, q.matrix(3, 2), Mask::Constant(2, 3, false), 2, "dominant logit");
  }
  for (const std::vector<double>& lv : levels(p)) {  // levels: Q_i = level, K_j = 1 + j/64, every other key forbidden
    DMatrix Ql(Index(lv.size()), 1), Kl(4, 1);
    for (Index i = 0; i < Ql.rows(); ++i) Ql(i, 0) = lv[std::size_t(i)];
    for (Index j = 0; j < 4; ++j) Kl(j, 0) = 1 + double(j) / 64;
    Mask M(Ql.rows(), 4);
    for (Index i = 0; i < M.rows(); ++i)
      for (Index j = 0; j < 4; ++j) M(i, j) = j % 2 == 1;
    // d_v = d_k = 1: the wrong scales 1/sqrt(d_v), none, 1/d_k and sqrt(d_k)
    // all equal 1/sqrt(d_k) here, so a fill composed with one of them (GPT-2's
    // sqrt(d_v), T5's none) is still told from its neighbours by these levels.
    const DMatrix Vl = q.matrix(4, 1);
    add(Ql, Kl, Vl, M, 2, "levels, masked");
    add(Ql, Kl, Vl, std::nullopt, 3, "levels");
  }
  {  // a large forbidden logit
    DMatrix Qf(2, 1), Kf(4, 1);
    Qf << 1, 1.5;
    Kf << 1000, 0.5, -0.25, 1;
    add(Qf, Kf, q.matrix(4, 2), mask_from({{1, 0, 0, 0}, {1, 0, 1, 0}}), 2, "large forbidden logit");
  }
  if (p.largest_finite() > 1e11) {  // additive fills (S + mask * fill): a forbidden logit 0 over
    // one allowed key per row, at -1e6 (-1e4 added stays above it, -1e8 added
    // falls below), -5e8 (-1e8 added above, -1e9 below), -5e9 (-1e9 added
    // above, -1e10 below) and -5e10 (-1e10 added above, as a fill that
    // replaces the logit at -1e9 too; float lowest or -inf below). The levels
    // rows cannot tell an added fill: their largest logit is an allowed one.
    // Eight keys, a forbidden 0 after each level: rows of a multiple of a
    // SIMD packet, so a vectorised exp (Eigen's) treats every key of every
    // row alike (tiny_positive_exp's stand-in for exp(-inf) shows in full
    // packets, not in a row's peeled or odd last keys).
    DMatrix Qa(4, 1), Ka(8, 1);
    Qa << 1, 1, 1, 1;
    Ka << -1e6, 0, -5e8, 0, -5e9, 0, -5e10, 0;
    add(Qa, Ka, q.matrix(8, 2),
        mask_from({{0, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 0, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 0, 1, 1, 1},
                   {1, 1, 1, 1, 1, 1, 0, 1}}),
        2, kAddedFillLevels);
  }
  if (p.largest_finite() >= double(std::numeric_limits<float>::max())) {
    // Allowed logits at float32's lowest value beside a forbidden key: a fill
    // of float lowest ties them (1/3 each), -inf leaves the key 0. The logits
    // are exact in float32 (1 times K), so a float32 model claims them. The
    // forbidden key comes first: a vectorised exp (Eigen's) takes a short
    // row's first keys in one packet and its last alone, with the scalar
    // exp, so a stand-in for exp(-inf) (tiny_positive_exp) shows on the
    // first key and not on a last odd one.
    const double lowest = -double(std::numeric_limits<float>::max());
    DMatrix Qt(1, 1), Kt(3, 1), Vt(3, 1);
    Qt << 1;
    Kt << 0, lowest, lowest;
    Vt << 4, 1, 2;
    add(Qt, Kt, Vt, mask_from({{1, 0, 0}}), 2, kFloatLowestTie);
  }
  {  // 512 tied logits: a sum of 512 ones kept in bfloat16 (8 significant bits)
     // stops growing at 256, so the weights come out 1/256 instead of 1/512 and
     // O (V: 1 at even keys, 0 at odd ones) 1 instead of 1/2; float16 and
     // wider sum them exactly. Tells a bfloat16 accumulation from the others.
    const Index T_v = 512;
    DMatrix Qt(1, 1), Kt = DMatrix::Zero(T_v, 1), Vt(T_v, 1);
    Qt << 1;
    for (Index j = 0; j < T_v; ++j) Vt(j, 0) = j % 2 == 0 ? 1 : 0;
    add(Qt, Kt, Vt, std::nullopt, 128, "512 tied logits");
  }
  {  // a logit of 256 x 300 = 76800, past float16's largest finite 65504,
     // from inputs every 16-bit type holds: a float16 computation overflows.
    DMatrix Qh(2, 1), Kh(3, 1);
    Qh << 256, 0.5;
    Kh << 300, 299, -2;
    add(Qh, Kh, q.matrix(3, 2), std::nullopt, 2, "logit past float16's range");
  }
  add(q.matrix(2, 2), q.matrix(3, 2), q.matrix(3, 2), mask_from({{0, 1, 0}, {1, 1, 1}}), 2,
      "fully forbidden row");
  add(q.matrix(2, 3), q.matrix(3, 2), q.matrix(3, 2), std::nullopt, 2, "d_k mismatch");
  {
    DMatrix Qn = q.matrix(2, 2);
    Qn(1, 0) = std::numeric_limits<double>::quiet_NaN();
    add(Qn, q.matrix(3, 2), q.matrix(3, 2), std::nullopt, 2, "NaN input");
  }
  // K wider than Q (the case above has Q wider): with both, a truncated
  // product's scale width (common, Q's, K's) is fitted, not guessed.
  add(q.matrix(2, 2), q.matrix(3, 3), q.matrix(3, 2), std::nullopt, 2, "d_k mismatch, K wider");
  return out;
}

// -- multi-head attention -----------------------------------------------------

std::vector<Case> multi_head_cases(Operation, const Precision&) {
  std::vector<Case> out;
  Quarters q(13);
  // T 4, d_model 5, two heads with d_k 2, d_v 3, W_O 6 x 4.
  auto make = [&](double x_scale, std::optional<Mask> m, const char* tag, bool nan = false) {
    Case c;
    c.op = Operation::multi_head_attention;
    c.X = q.matrix(4, 5, x_scale);
    if (nan) c.X(2, 3) = std::numeric_limits<double>::quiet_NaN();
    for (int h = 0; h < 2; ++h)
      c.heads.push_back({q.matrix(5, 2), q.matrix(5, 2), q.matrix(5, 3)});
    c.W_O = q.matrix(6, 4);
    c.mask = std::move(m);
    c.tags = {tag};
    out.push_back(c);
  };
  const Mask causal = mask_from({{0, 1, 1, 1}, {0, 0, 1, 1}, {0, 0, 0, 1}, {0, 0, 0, 0}});
  make(1, causal, "generic, causal mask");
  make(1, std::nullopt, "generic, no mask");
  make(1, mask_from({{0, 1, 0, 1}, {1, 0, 0, 0}, {0, 1, 1, 0}, {0, 0, 1, 0}}), "random mask");
  make(48, std::nullopt, "large logits");
  make(1, mask_from({{0, 1, 1, 1}, {1, 1, 1, 1}, {0, 0, 0, 1}, {0, 0, 0, 0}}), "fully forbidden row");
  make(1, std::nullopt, "NaN input", true);
  return out;
}

// -- mask builders ------------------------------------------------------------

/// Appends a mask builder's call with (T_q, T_v, bottom-right alignment, key length).
void add_mask_call(std::vector<Case>& out, Operation op, Index T_q, Index T_v, bool bottom_right,
                   Index key_length) {
  Case c;
  c.op = op;
  c.mask_shape.T_q = T_q;
  c.mask_shape.T_v = T_v;
  c.mask_shape.bottom_right = bottom_right;
  c.mask_shape.key_length = key_length;
  out.push_back(c);
}

std::vector<Case> causal_mask_cases(Operation op, const Precision&) {
  std::vector<Case> out;
  add_mask_call(out, op, 3, 5, false, 0);
  add_mask_call(out, op, 3, 5, true, 0);
  add_mask_call(out, op, 5, 3, true, 0);
  add_mask_call(out, op, 4, 4, false, 0);
  return out;
}

std::vector<Case> padding_mask_cases(Operation op, const Precision&) {
  std::vector<Case> out;
  add_mask_call(out, op, 3, 5, false, 2);
  add_mask_call(out, op, 4, 6, false, 4);
  add_mask_call(out, op, 2, 3, false, 3);
  return out;
}

/// No models of these (the grader does not ask: diagnosed = false, or the
/// backward pass's own battery, backward_models.cpp).
std::vector<Case> no_cases(Operation, const Precision&) { return {}; }

// -- the entries of an answer (case_entries) -----------------------------------

std::size_t mask_answer_entries(const Case& c) { return std::size_t(c.mask_shape.T_q * c.mask_shape.T_v); }
std::size_t multi_head_answer_entries(const Case& c) { return std::size_t(c.X.rows() * c.W_O.cols()); }
std::size_t qkv_answer_entries(const Case& c) {
  return std::size_t(c.Q.rows() * (c.K.rows() + c.V.cols() + 1));
}
std::size_t logits_answer_entries(const Case& c) { return std::size_t(c.S.size()); }

/// An operation's battery: its candidate cases and the entries of its answer.
struct BatteryRow {
  Operation op;
  std::vector<Case> (*cases)(Operation op, const Precision& declared);
  std::size_t (*answer_entries)(const Case& c);
};

constexpr BatteryRow kBatteryRows[] = {
    {Operation::softmax_rows, logits_cases, logits_answer_entries},
    {Operation::masked_softmax, logits_cases, logits_answer_entries},
    {Operation::attention, qkv_cases, qkv_answer_entries},
    {Operation::attention_tiled, qkv_cases, qkv_answer_entries},
    {Operation::multi_head_attention, multi_head_cases, multi_head_answer_entries},
    {Operation::causal_mask, causal_mask_cases, mask_answer_entries},
    {Operation::padding_mask, padding_mask_cases, mask_answer_entries},
    {Operation::batched_attention, no_cases, logits_answer_entries},
    {Operation::attention_backward, no_cases, qkv_answer_entries},
};

static_assert(attn::prop::detail::one_row_per_operation(kBatteryRows),
              "kBatteryRows: one row per OperationSpec, in the enumerator's order");

const BatteryRow& battery_row(Operation op) { return attn::prop::detail::row_of(kBatteryRows, op); }

}  // namespace

std::vector<Case> candidate_cases(Operation op, const Precision& declared) {
  std::vector<Case> all = battery_row(op).cases(op, declared);
  std::vector<Case> out;
  for (auto& c : all)
    if (fit_to(c, declared)) out.push_back(std::move(c));
  return out;
}

std::size_t case_entries(const Case& c) {
  std::size_t n = std::size_t(c.S.size() + c.Q.size() + c.K.size() + c.V.size() + c.X.size() +
                              c.W_O.size());
  for (const auto& h : c.heads) n += std::size_t(h.W_Q.size() + h.W_K.size() + h.W_V.size());
  if (c.mask) n += std::size_t(c.mask->size());
  return n + battery_row(c.op).answer_entries(c);
}

}  // namespace attn::mis::detail

#include "check_util.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>

#include "attn/prop/batched.hpp"
#include "attn/ref/extended_reference.hpp"
#include "oracle_memo.hpp"
#include "attn/prop/operation_table.hpp"

namespace attn::prop::detail {

namespace {

/// What the oracle answers for an operation and how an answer of it is
/// judged: one row per operation in kOracleRows (below), read by the
/// operation's value.
struct OracleRow {
  Operation op;
  /// The oracle's answer and the bound it is judged with (expected_for;
  /// reference/TOLERANCE.md).
  Expected (*expected)(const Case& c, const Precision& p);
  /// The property that owns answering (answering_owner).
  const char* answering_owner;
  /// Whether a subject that returns the weights A returns them for it
  /// (weights_expected).
  bool weights;
  /// What is wrong with the shape of an answered O, if anything; nullptr
  /// for an operation whose answer is judged without O's shape.
  std::optional<std::string> (*O_shape_problem)(const DMatrix& O, const Case& c);
  /// Whether O stacks heads and is compared head by head (compare_batched).
  bool O_per_head;
};

const OracleRow& oracle_row(Operation op);

}  // namespace

Index T_q(const Case& c) { return case_sizes(c).T_q; }
Index T_v(const Case& c) { return case_sizes(c).T_v; }

bool forbidden(const Case& c, Index i, Index j) {
  return (c.mask && (*c.mask)(i, j)) || (takes_logits(c.op) && c.S(i, j) == -HUGE_VAL);
}

bool weights_expected(const Subject& s, const Case& c) {
  return oracle_row(c.op).weights && s.returns_weights();
}

ref::MultiHeadWeights multi_head_weights(const Case& c) {
  ref::MultiHeadWeights w;
  for (const HeadProjections& h : c.heads) w.heads.push_back({h.W_Q, h.W_K, h.W_V});
  w.W_O = c.W_O;
  return w;
}

std::optional<Failure> require_answer(const Outcome& o, const Case& c, const Subject& s,
                                      Reads reads) {
  Failure f;
  f.outcome = o;
  if (o.kind == Outcome::Kind::refusal) {
    f.summary = "refused a valid input: " + o.error_type + ": " + o.message;
    return f;
  }
  if (o.kind == Outcome::Kind::fault) {
    f.summary = "no answer: " + o.message;
    return f;
  }
  auto shape = [](const DMatrix& M) { return std::to_string(M.rows()) + "x" + std::to_string(M.cols()); };
  if (reads == Reads::weights) {
    if (weights_expected(s, c) && (o.A.rows() != T_q(c) || o.A.cols() != T_v(c))) {
      f.summary = "A is " + shape(o.A) + " but must be T_q x T_v = " + std::to_string(T_q(c)) +
                  "x" + std::to_string(T_v(c)) + " (Lemma 1)";
      return f;
    }
    return std::nullopt;
  }
  if (operation_spec(c.op).answers & answer::logsumexp) {
    if (o.logsumexp.rows() != T_q(c) || o.logsumexp.cols() != 1) {
      f.summary = "logsumexp is " + shape(o.logsumexp) + " but must be T_q x 1 = " +
                  std::to_string(T_q(c)) + "x1";
      return f;
    }
  } else if (weights_expected(s, c) && (o.A.rows() != T_q(c) || o.A.cols() != T_v(c))) {
    f.summary = "A is " + shape(o.A) + " but must be T_q x T_v = " + std::to_string(T_q(c)) + "x" +
                std::to_string(T_v(c)) + " (Lemma 1)";
    return f;
  }
  if (const auto O_shape = oracle_row(c.op).O_shape_problem)
    if (auto why = O_shape(o.O, c)) {
      f.summary = std::move(*why);
      return f;
    }
  return std::nullopt;
}

const char* answering_owner(Operation op) { return oracle_row(op).answering_owner; }

namespace {

thread_local std::optional<LeftMark> g_left;
thread_local bool g_judged_by_refusal = false;

/// The parts the operation returns and a property reading `reads` reads.
Parts expected_parts(const Case& c, const Subject& s, Reads reads) {
  Parts p;
  p.A = weights_expected(s, c);
  if (reads == Reads::all) {
    p.O = returns_outputs(c.op);
    p.logsumexp = (operation_spec(c.op).answers & answer::logsumexp) != 0;
  }
  return p;
}

/// Of the parts expected, those with their shapes of Lemma 1.
Parts well_shaped_parts(const Outcome& o, const Case& c, const Subject& s, Reads reads) {
  Parts p = expected_parts(c, s, reads);
  p.A = p.A && o.A.rows() == T_q(c) && o.A.cols() == T_v(c);
  if (p.O) p.O = !oracle_row(c.op).O_shape_problem(o.O, c);
  p.logsumexp = p.logsumexp && o.logsumexp.rows() == T_q(c) && o.logsumexp.cols() == 1;
  return p;
}

}  // namespace

void leave_to(const std::string& owner, const std::string& why, const std::string& example) {
  if (!g_left) g_left = LeftMark{owner, why, example};
}
const std::optional<LeftMark>& left_mark() { return g_left; }
void clear_left_mark() {
  g_left.reset();
  g_judged_by_refusal = false;
}
void mark_judged_by_refusal() { g_judged_by_refusal = true; }
bool judged_by_refusal() { return g_judged_by_refusal; }

std::string perm_text(const std::vector<Index>& p) {
  std::ostringstream os;
  os << "[";
  for (std::size_t k = 0; k < p.size(); ++k) os << (k ? ", " : "") << p[k];
  os << "]";
  return os.str();
}

std::string left_tag(const LeftMark& mark) {
  return std::string(kLeftTag) + mark.why + ", charged to " + mark.owner + " alone";
}

void leave_unjudged(bool well_shaped, Operation op) {
  if (well_shaped)
    leave_to("oracle_agreement", "a non-finite answer", "every entry compared was NaN or Inf");
  else
    leave_to(answering_owner(op), "an answer of the wrong shape",
             "no part of the two answers has its shape in both");
}

Judged judge_parts(const Outcome& o, const Case& c, const Subject& s, const std::string& property,
                   Reads reads) {
  Judged j;
  const std::string owner = answering_owner(c.op);
  if (o.kind == Outcome::Kind::fault || property == owner) {
    j.failure = require_answer(o, c, s, reads);
    if (j.failure) return j;
  }
  if (o.kind == Outcome::Kind::refusal) {
    leave_to(owner, "a refused valid input", "refused with " + o.error_type + ": " + o.message);
    j.left = true;
    return j;
  }
  j.parts = well_shaped_parts(o, c, s, reads);
  if (!j.parts.any() && expected_parts(c, s, reads).any()) {
    const auto shape = require_answer(o, c, s, reads);
    leave_to(owner, "an answer of the wrong shape", shape ? shape->summary : "");
    j.left = true;
  }
  return j;
}

ref::PrecisionModel precision_model(const Precision& p) {
  return p.model();
}

namespace {

// The oracle's answers (expected_for), one per kind of operation.

/// One attention per (n, h), each with its own oracle and per-head bound.
Expected expected_batched(const Case& c, const Precision& p) {
  Expected e;
  if (auto why = batched_shape_problem(c)) throw ref::OracleRefusal("oracle: " + *why);
  const Shape4 out = batched_output_shape(c);
  const Index rows = out[2], d_v = out[3];
  e.O = ref::RealMatrix(out[0] * out[1] * rows, d_v);
  e.bound_O = DMatrix(out[0] * out[1] * rows, d_v);
  const ref::PrecisionModel model = precision_model(p);
  for (Index n = 0; n < out[0]; ++n)
    for (Index h = 0; h < out[1]; ++h) {
      const HeadSlice hs = batched_head(c, n, h);
      const auto exact = memo_exact_attention(hs.Q, hs.K, hs.V, hs.mask, c.batched.scale);
      const auto bound = ref::attention_error_bound(hs.Q, hs.K, hs.V, exact, model, c.batched.scale);
      const Index first = (n * out[1] + h) * rows;
      for (Index i = 0; i < rows; ++i)
        for (Index l = 0; l < d_v; ++l) {
          e.O(first + i, l) = exact.O(i, l);
          e.bound_O(first + i, l) = bound.O(i, l);
        }
    }
  return e;
}

Expected expected_multi_head(const Case& c, const Precision& p) {
  Expected e;
  const ref::MultiHeadWeights w = multi_head_weights(c);
  e.O = ref::exact_multi_head_attention(c.X, c.X, w, c.mask);
  e.bound_O = ref::multi_head_error_bound(c.X, c.X, w, c.mask, precision_model(p));
  return e;
}

/// Attention on Q, K, V; `online`: the online softmax's rescales counted in
/// the bound (the tiled forward).
Expected expected_qkv(const Case& c, const Precision& p, bool online) {
  Expected e;
  // Large cases go to the oracle's second tier, whose own bound is added
  // (TOLERANCE.md, "Two tiers").
  const bool extended = ref::uses_extended_tier(c.Q.rows(), c.K.rows(), c.Q.cols(), c.V.cols());
  const auto exact = extended ? memo_extended_attention(c.Q, c.K, c.V, c.mask)
                              : memo_exact_attention(c.Q, c.K, c.V, c.mask);
  ref::PrecisionModel model = precision_model(p);
  // The online softmax rescales once per key tile after the first (TOLERANCE.md, (2')).
  if (online && c.tile_k > 0) model.online_rescales = int((c.K.rows() + c.tile_k - 1) / c.tile_k) - 1;
  auto bound = ref::attention_error_bound(c.Q, c.K, c.V, exact, model);
  if (extended)
    bound = ref::add_bounds(std::move(bound), ref::attention_error_bound(c.Q, c.K, c.V, exact,
                                                                         ref::extended_precision()));
  e.logsumexp = ref::RealMatrix(c.Q.rows(), 1);
  e.bound_logsumexp = DMatrix(c.Q.rows(), 1);
  for (Index i = 0; i < c.Q.rows(); ++i) {
    e.logsumexp(i, 0) = exact.logsumexp[std::size_t(i)];
    e.bound_logsumexp(i, 0) = bound.logsumexp[std::size_t(i)];
  }
  e.A = exact.A;
  e.O = exact.O;
  e.bound_A = bound.A;
  e.bound_O = bound.O;
  e.bound_row_sum = bound.row_sum;
  e.allowed = exact.allowed;
  return e;
}

Expected expected_attention(const Case& c, const Precision& p) { return expected_qkv(c, p, false); }
Expected expected_tiled(const Case& c, const Precision& p) { return expected_qkv(c, p, true); }

Expected expected_logits(const Case& c, const Precision& p) {
  Expected e;
  const bool extended = ref::uses_extended_tier(c.S.rows(), c.S.cols(), 1, 1);
  const auto exact = extended ? memo_extended_masked_softmax(c.S, c.mask)
                              : memo_exact_masked_softmax(c.S, c.mask);
  auto bound = ref::softmax_error_bound(exact, precision_model(p));
  if (extended)
    bound = ref::add_bounds(std::move(bound), ref::softmax_error_bound(exact, ref::extended_precision()));
  e.A = exact.A;
  e.bound_A = bound.A;
  e.bound_row_sum = bound.row_sum;
  e.allowed = exact.allowed;
  return e;
}

// What is wrong with an answered O's shape, by the operation's inputs.

std::string shape_of(const DMatrix& M) { return std::to_string(M.rows()) + "x" + std::to_string(M.cols()); }

std::optional<std::string> qkv_O_shape_problem(const DMatrix& O, const Case& c) {
  if (O.rows() == c.Q.rows() && O.cols() == c.V.cols()) return std::nullopt;
  return "O is " + shape_of(O) + " but must be T_q x d_v = " + std::to_string(c.Q.rows()) + "x" +
         std::to_string(c.V.cols());
}

std::optional<std::string> multi_head_O_shape_problem(const DMatrix& O, const Case& c) {
  if (O.rows() == c.X.rows() && O.cols() == c.W_O.cols()) return std::nullopt;
  return "O is " + shape_of(O) + " but must be T x d_out = " + std::to_string(c.X.rows()) + "x" +
         std::to_string(c.W_O.cols()) + " ([O_1, ..., O_h] W_O, section 32.2.5)";
}

std::optional<std::string> batched_O_shape_problem(const DMatrix& O, const Case& c) {
  const Shape4 out = batched_output_shape(c);
  if (O.rows() == out[0] * out[1] * out[2] && O.cols() == out[3]) return std::nullopt;
  return "O does not have the shape (N, H, T_q, d_v) = " + shape_text(out);
}

// One row per operation, in the enumerator's order. The backward pass's row
// keeps the weights flag it had (true): no backward property reads
// judge_parts or weights_expected, they judge the gradients.
constexpr OracleRow kOracleRows[] = {
    {Operation::softmax_rows, expected_logits, "oracle_agreement", true, nullptr, false},
    {Operation::masked_softmax, expected_logits, "oracle_agreement", true, nullptr, false},
    {Operation::attention, expected_attention, "score_shape", true, qkv_O_shape_problem, false},
    {Operation::attention_tiled, expected_tiled, "oracle_agreement", false, qkv_O_shape_problem, false},
    {Operation::multi_head_attention, expected_multi_head, "oracle_agreement", false,
     multi_head_O_shape_problem, false},
    {Operation::causal_mask, expected_logits, "oracle_agreement", false, nullptr, false},
    {Operation::padding_mask, expected_logits, "oracle_agreement", false, nullptr, false},
    {Operation::batched_attention, expected_batched, "oracle_agreement", false, batched_O_shape_problem,
     true},
    {Operation::attention_backward, expected_attention, "oracle_agreement", true, qkv_O_shape_problem,
     false},
};
static_assert(detail::one_row_per_operation(kOracleRows),
              "kOracleRows: one row per OperationSpec, in the enumerator's order");

const OracleRow& oracle_row(Operation op) { return row_of(kOracleRows, op); }

}  // namespace

Expected expected_for(const Case& c, const Precision& p) { return oracle_row(c.op).expected(c, p); }

std::optional<Failure> compare_with_bound(const std::string& name, const DMatrix& actual,
                                          const ref::RealMatrix& exact, const DMatrix& bound,
                                          double* max_ratio, const std::vector<bool>* skip_rows) {
  std::optional<WorstEntry> worst;
  double worst_ratio = -1;
  bool failed = false;
  for (Index i = 0; i < actual.rows(); ++i)
    for (Index j = 0; j < actual.cols(); ++j) {
      if (skip_rows && (*skip_rows)[std::size_t(i)]) continue;
      const double a = actual(i, j);
      const double x = static_cast<double>(exact(i, j));
      double err, ratio;
      if (!std::isfinite(a)) {
        err = std::abs(a - x);
        if (std::isnan(err)) err = std::numeric_limits<double>::quiet_NaN();
        ratio = std::numeric_limits<double>::infinity();
      } else {
        err = static_cast<double>(abs(ref::Real(a) - exact(i, j)));
        ratio = bound(i, j) > 0 ? err / bound(i, j) : (err > 0 ? std::numeric_limits<double>::infinity() : 0);
      }
      if (ratio > worst_ratio) {
        worst_ratio = ratio;
        worst = WorstEntry{name, i, j, x, a, err, bound(i, j)};
      }
      if (!(err <= bound(i, j))) failed = true;
    }
  if (max_ratio) *max_ratio = std::max(*max_ratio, worst_ratio);
  if (!failed) return std::nullopt;
  Failure f;
  std::ostringstream os;
  os.precision(3);
  if (std::isnan(worst->actual)) {
    os << name << "(" << worst->row << ", " << worst->col << ") is NaN; the oracle gives "
       << worst->expected;
  } else if (std::isinf(worst->actual)) {
    os << name << "(" << worst->row << ", " << worst->col << ") is "
       << (worst->actual > 0 ? "Inf" : "-Inf") << "; the oracle gives " << worst->expected;
  } else if (worst->bound > 0) {
    os << name << "(" << worst->row << ", " << worst->col << ") differs from the oracle by "
       << worst->error << ", more than the error bound " << worst->bound << " for this precision";
  } else {
    // An exact comparison (a bound of 0: an exactly representable answer,
    // such as a single allowed key's weight 1): no "error bound 0".
    os.precision(17);
    os << name << "(" << worst->row << ", " << worst->col << ") is " << worst->actual
       << ", but it must be exactly " << worst->expected;
    os.precision(3);
    os << " (it differs by " << worst->error << ")";
  }
  f.summary = os.str();
  f.worst = worst;
  f.marked_row = worst->row;
  return f;
}

std::optional<Failure> compare_batched(const Case& c, const DMatrix& actual,
                                       const ref::RealMatrix& exact, const DMatrix& bound,
                                       double* max_ratio) {
  auto f = compare_with_bound("O", actual, exact, bound, max_ratio);
  if (!f || !f->worst) return f;
  // Name the head: the same comparison on the worst entry's (n, h) slice.
  const Shape4 out = batched_output_shape(c);
  const Index r = f->worst->row;
  const StackedRow at = stacked_row(out, r);
  const Index first = (at.n * out[1] + at.h) * out[2];
  ref::RealMatrix exact_slice(out[2], out[3]);
  for (Index i = 0; i < out[2]; ++i)
    for (Index l = 0; l < out[3]; ++l) exact_slice(i, l) = exact(first + i, l);
  const std::string name = "O[n=" + std::to_string(at.n) + ", h=" + std::to_string(at.h) + "]";
  auto g = compare_with_bound(name, actual.middleRows(first, out[2]), exact_slice,
                              bound.middleRows(first, out[2]));
  if (!g) return f;
  const Index g_kv = c.batched.K[1] >= 1 && out[1] % c.batched.K[1] == 0
                         ? kv_head_of(at.h, out[1], c.batched.K[1])
                         : -1;
  g->summary += " (batch n = " + std::to_string(at.n) + ", query head h = " + std::to_string(at.h);
  if (g_kv >= 0) g->summary += ", which attends with kv head " + std::to_string(g_kv);
  g->summary += ", query row " + std::to_string(at.i) + ")";
  g->marked_row = r;  // the stacked row: print_inputs flags Q[n, h]'s row i
  return g;
}

std::optional<Failure> with_outcome(std::optional<Failure> f, const Outcome& o) {
  if (f && !f->outcome) f->outcome = o;
  return f;
}

namespace {

thread_local const ShapeSpace* g_shapes = nullptr;
thread_local bool g_not_judged = false;

}  // namespace

const ShapeSpace& shapes_in_force() {
  static const ShapeSpace any;
  return g_shapes ? *g_shapes : any;
}

ShapesInForce::ShapesInForce(const ShapeSpace& shapes) : saved_(g_shapes) { g_shapes = &shapes; }
ShapesInForce::~ShapesInForce() { g_shapes = saved_; }

bool outside_shapes(const Case& c) {
  if (shapes_in_force().admits(c)) return false;
  g_not_judged = true;
  return true;
}

bool not_judged() { return g_not_judged; }
void clear_not_judged() { g_not_judged = false; }

namespace {

/// The bound of an entry whose exact value is `exact`, for an answer of
/// size |answer|: the bound times max(1, |answer| / |exact|). An exact value
/// below double's range (a weight of e^-1000) counts as the smallest
/// subnormal: a wrong answer of 1e-145 there rounds at its own size, not at
/// the size of the underflow bound (4e-307). A bound of 0 (an exact value,
/// 0 included, that the subject must give exactly) stays 0 whatever the
/// answer: |answer| / denorm_min overflows to inf for |answer| above 1e-15,
/// and 0 x inf would be a NaN tolerance that no difference meets. The
/// result is never NaN (at most double's largest finite value).
double answer_rounding(double bound, double answer, const ref::Real& exact) {
  const double x = std::max(std::abs(static_cast<double>(exact)), std::numeric_limits<double>::denorm_min());
  if (bound == 0 || !std::isfinite(answer) || std::abs(answer) <= x) return bound;
  return std::min(bound * (std::abs(answer) / x), std::numeric_limits<double>::max());
}

}  // namespace

std::optional<Failure> compare_related(const std::string& name, const DMatrix& original,
                                       const DMatrix& related, const EntryMap& m,
                                       const ref::RealMatrix& exact_original,
                                       const ref::RealMatrix& exact_related,
                                       const DMatrix& bound_original, const DMatrix& bound_related,
                                       Index* judged, double* max_ratio) {
  std::optional<WorstEntry> worst;
  double worst_ratio = -1;
  bool failed = false;
  for (Index i = 0; i < related.rows(); ++i)
    for (Index j = 0; j < related.cols(); ++j) {
      const Index r = m.rows.empty() ? i : m.rows[std::size_t(i)];
      const Index k = m.cols.empty() ? j : m.cols[std::size_t(j)];
      const double a = related(i, j), b = original(r, k);
      // A row holding a NaN or Inf (an overflow) in either answer is
      // oracle_agreement's to charge, not this relation's: one fault, one
      // charge (its finite entries are off by the same overflow).
      if (!related.row(i).allFinite() || !original.row(r).allFinite()) continue;
      if (judged) ++*judged;
      const ref::Real drift = abs(exact_original(r, k) - exact_related(i, j));
      // Each answer's own rounding: its bound, scaled up where the subject's
      // answer is larger than the exact value (a wrong answer rounds at its
      // own size, so two wrong answers that agree with each other differ by
      // their rounding, not by the correct answer's). Rounded up by a
      // relative 2^-50 so the tolerance's own rounding cannot bite.
      const double tol = (answer_rounding(bound_original(r, k), b, exact_original(r, k)) +
                          answer_rounding(bound_related(i, j), a, exact_related(i, j)) +
                          static_cast<double>(drift)) *
                         (1 + 0x1p-50);
      const double err = std::abs(a - b);
      const double ratio = !std::isfinite(err) ? std::numeric_limits<double>::infinity()
                           : tol > 0            ? err / tol
                           : err > 0            ? std::numeric_limits<double>::infinity()
                                                : 0;
      if (ratio > worst_ratio) {
        worst_ratio = ratio;
        worst = WorstEntry{name, i, j, b, a, err, tol};
      }
      if (!(err <= tol)) failed = true;
    }
  if (max_ratio) *max_ratio = std::max(*max_ratio, worst_ratio);
  if (!failed) return std::nullopt;
  Failure f;
  std::ostringstream os;
  {
    // Each value as the shortest text that reads back as it (up to 17
    // significant digits), so two different answers never print the same
    // (12 digits did for subnormals: 6.57223630855e-310 twice); the two
    // answers are both the subject's, neither is the oracle's.
    auto exact_text = [](double x) {
      char buf[40];
      const auto r = std::to_chars(buf, buf + sizeof buf, x);
      return std::string(buf, r.ptr);
    };
    os << name << "(" << worst->row << ", " << worst->col << ") of the transformed case is "
       << exact_text(worst->actual) << ", while the subject's own answer to the original case gives "
       << exact_text(worst->expected) << "; the two must agree";
    os.precision(3);
    os << " (difference " << worst->error << ", allowed " << worst->bound << ")";
  }
  f.summary = os.str();
  f.worst = worst;
  f.marked_row = worst->row;
  return f;
}

std::optional<Failure> check_related(Subject& s, const Case& original, const Case& related,
                                     const EntryMap& map_A, const EntryMap& map_O,
                                     const std::string& relation) {
  if (outside_shapes(original) || outside_shapes(related)) return std::nullopt;
  // Neither answer is the owner's: a refusal or a wrong shape is left to it.
  const Outcome o1 = s.run(original);
  const Judged j1 = judge_parts(o1, original, s, "");
  if (j1.stop()) {
    auto f = j1.failure;
    if (f) f->answered = original;
    return f;
  }
  const Outcome o2 = s.run(related);
  const Judged j2 = judge_parts(o2, related, s, "");
  if (j2.stop()) {
    auto f = j2.failure;
    if (f) {
      f->summary = "on the transformed case (" + relation + "): " + f->summary;
      f->answered = related;
    }
    return f;
  }
  const Expected e1 = expected_for(original, s.precision());
  const Expected e2 = expected_for(related, s.precision());
  auto fail = [&](std::optional<Failure> f) {
    f->summary = relation + ": " + f->summary;
    f->outcome = o2;
    f->answered = related;
    return f;
  };
  Index judged = 0;
  const bool A = j1.parts.A && j2.parts.A, O = takes_qkv(original.op) && j1.parts.O && j2.parts.O;
  if (A)
    if (auto f = compare_related("A", o1.A, o2.A, map_A, e1.A, e2.A, e1.bound_A, e2.bound_A, &judged))
      return fail(f);
  if (O)
    if (auto f = compare_related("O", o1.O, o2.O, map_O, e1.O, e2.O, e1.bound_O, e2.bound_O, &judged))
      return fail(f);
  if (judged == 0) leave_unjudged(A || O, original.op);
  return std::nullopt;
}

std::vector<Index> argsort(const std::vector<double>& keys) {
  std::vector<Index> order(keys.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = Index(k);
  std::stable_sort(order.begin(), order.end(),
                   [&](Index a, Index b) { return keys[std::size_t(a)] < keys[std::size_t(b)]; });
  return order;
}

std::optional<Failure> require_specific_refusal(Subject& s, const Case& faulty, const Outcome& o,
                                                const std::string& expected_type,
                                                const std::string& why, const Case& valid,
                                                const std::string& valid_what) {
  if (auto f = require_refusal(o, expected_type, why)) {
    f->shown = faulty;
    return f;
  }
  const Outcome v = s.run(valid);
  if (v.kind == Outcome::Kind::result) return std::nullopt;
  if (v.kind == Outcome::Kind::refusal) {
    // A refused valid input is the owner of answering's to charge.
    leave_to(answering_owner(valid.op), "a refused valid input",
             "refused " + why + ", and also " + valid_what + " (" + v.error_type + ": " +
                 v.message + ")");
    return std::nullopt;
  }
  Failure f;
  f.outcome = v;
  f.answered = valid;
  f.shown = valid;
  if (v.kind == Outcome::Kind::refusal)
    f.summary = "refused " + why + ", but also " + valid_what + " (" + v.error_type + ": " +
                v.message + "): the error must come from the fault, not from every input";
  else
    f.summary = "refused " + why + ", but gave no answer to " + valid_what + ": " + v.message;
  return f;
}

RowJudgment judge_row_stochastic(const Case& c, const DMatrix& A, Index i, double bound) {
  RowJudgment r;
  bool non_finite = false, forbidden_weight = false;
  for (Index j = 0; j < A.cols(); ++j) {
    const double a = A(i, j);
    non_finite = non_finite || !std::isfinite(a);
    forbidden_weight = forbidden_weight || (forbidden(c, i, j) && a != 0.0);
  }
  if (non_finite || forbidden_weight) {
    r.kind = non_finite ? RowJudgment::Kind::non_finite : RowJudgment::Kind::forbidden_weight;
    return r;
  }
  for (Index j = 0; j < A.cols(); ++j)
    if (!(A(i, j) >= 0)) {
      r.kind = RowJudgment::Kind::negative_weight;
      r.column = j;
      return r;
    }
  r.sum = exact_row_sum(A, i);
  r.error = static_cast<double>(abs(r.sum - 1));
  r.kind = r.error <= bound ? RowJudgment::Kind::passes : RowJudgment::Kind::sum_off;
  return r;
}

std::vector<bool> masked_after_softmax_rows(const Case& c, const Outcome& o, const Expected& e,
                                            const Parts& parts, const Precision& p) {
  std::vector<bool> left(std::size_t(o.A.rows()), false);
  // parts.A (check_answer's, from judge_parts) only where the operation's
  // row of kOracleRows expects weights: never for an answer of stacked heads.
  if (!parts.A || !c.mask) return left;
  // One fault, one charge (properties/README.md): the value properties
  // partition what they judge, the row sums being row_stochastic's. A
  // correct kernel never reaches a row here: it fails neither the sum check
  // below (row_stochastic passes it) nor the comparison with the oracle.
  // A precision fault cannot qualify: its rows are normalised over the
  // allowed keys, so its missing mass would have to equal the forbidden
  // keys' share within the bound. A row of zeros qualifies only where the
  // forbidden keys hold all but a share of the mass within the bound (the
  // softmax over every key, zeroed, is 0 there too); a zero row answered
  // where the allowed keys hold mass (a guard's 0/0, llm.c's floor) does not.
  std::optional<Expected> unmasked;
  const bool with_O = parts.O && takes_qkv(c.op);
  for (Index i = 0; i < o.A.rows(); ++i) {
    // A row row_stochastic judges (no NaN or Inf, no nonzero forbidden
    // weight, no negative weight) and fails on its sum.
    if (judge_row_stochastic(c, o.A, i, e.bound_row_sum.at(std::size_t(i))).kind !=
        RowJudgment::Kind::sum_off)
      continue;
    // The oracle's softmax over every key (the mask ignored), in its own
    // precision and tier, with the bounds of that computation at p.
    if (!unmasked) {
      Case all_keys = c;
      all_keys.mask.reset();
      try {
        unmasked = expected_for(all_keys, p);
      } catch (const ref::OracleRefusal&) {
        return left;  // a row with every logit -inf: no softmax over every key
      }
    }
    // Restricted to the allowed keys (the forbidden ones are 0 here).
    bool agrees = true;
    for (Index j = 0; j < o.A.cols() && agrees; ++j)
      if (!forbidden(c, i, j))
        agrees = static_cast<double>(abs(ref::Real(o.A(i, j)) - unmasked->A(i, j))) <=
                 unmasked->bound_A(i, j);
    // O's row: that zeroed row times V, within O's bound for the softmax over
    // every key (which sums |.| over every key, the allowed ones included).
    for (Index l = 0; with_O && l < o.O.cols() && agrees; ++l) {
      const ref::Real target = exact_sum(o.A.cols(), [&](Index j) {
        return forbidden(c, i, j) ? ref::Real(0) : unmasked->A(i, j) * ref::Real(c.V(j, l));
      });
      agrees = std::isfinite(o.O(i, l)) &&
               static_cast<double>(abs(ref::Real(o.O(i, l)) - target)) <= unmasked->bound_O(i, l);
    }
    left[std::size_t(i)] = agrees;
  }
  return left;
}

std::optional<Failure> check_answer(const Subject& s, const Case& c, const Outcome& o,
                                    const RatioRecorder& record, const std::string& property) {
  if (builds_mask(c.op) && o.kind == Outcome::Kind::result) return std::nullopt;
  const Judged judged = judge_parts(o, c, s, property);
  if (judged.stop()) return judged.failure;
  const Parts& parts = judged.parts;
  const Expected e = expected_for(c, s.precision());
  // Rows that are exactly a mask applied after the softmax: row_stochastic's
  // (masked_after_softmax_rows); only for oracle_agreement itself.
  const std::vector<bool> left_rows =
      property == "oracle_agreement" && parts.A
          ? masked_after_softmax_rows(c, o, e, parts, s.precision())
          : std::vector<bool>{};
  const bool any_left = std::find(left_rows.begin(), left_rows.end(), true) != left_rows.end();
  const std::vector<bool>* skip = any_left ? &left_rows : nullptr;
  auto compare = [&](const char* name, const DMatrix& actual, const ref::RealMatrix& exact,
                     const DMatrix& bound) {
    double ratio = 0;
    // logsumexp is no row of A's: every row compared.
    auto f = compare_with_bound(name, actual, exact, bound, &ratio,
                                std::string(name) == "logsumexp" ? nullptr : skip);
    if (record) record(name, ratio, actual.size());
    return with_outcome(f, o);
  };
  if (oracle_row(c.op).O_per_head) {
    if (!parts.O) return std::nullopt;
    double ratio = 0;
    auto f = compare_batched(c, o.O, e.O, e.bound_O, &ratio);
    if (record) record("O", ratio, o.O.size());
    return with_outcome(f, o);
  }
  DMatrix bound_O = e.bound_O;
  if (parts.A) {
    // A finite forbidden entry is exact_zeros' (Lemma 2), and so is what it
    // adds to O: O's bound on its row grows by |A_ij| |V_jl| (rounded up).
    // A NaN or Inf there stays, and is charged here.
    DMatrix allowed_part = o.A;
    const bool grow = parts.O && takes_qkv(c.op);
    for (Index i = 0; i < allowed_part.rows(); ++i)
      for (Index j = 0; j < allowed_part.cols(); ++j) {
        const double a = allowed_part(i, j);
        if (!forbidden(c, i, j) || !std::isfinite(a)) continue;
        if (grow && a != 0.0)
          for (Index l = 0; l < bound_O.cols(); ++l)
            bound_O(i, l) += std::abs(a) * std::abs(c.V(j, l)) * (1 + 0x1p-50);
        allowed_part(i, j) = 0.0;
      }
    if (auto f = compare("A", allowed_part, e.A, e.bound_A)) return f;
  }
  if (parts.O)
    if (auto f = compare("O", o.O, e.O, bound_O)) return f;
  if (parts.logsumexp)
    if (auto f = compare("logsumexp", o.logsumexp, e.logsumexp, e.bound_logsumexp)) return f;
  if (skip) {
    // Every other row agrees: the case's only departures are rows masked
    // after the softmax, row_stochastic's to charge (said in the verdict's block).
    Index n = 0, first = -1;
    for (std::size_t i = 0; i < left_rows.size(); ++i)
      if (left_rows[i]) {
        if (first < 0) first = Index(i);
        ++n;
      }
    std::ostringstream os;
    os << "row " << first << " of A sums to " << static_cast<double>(exact_row_sum(o.A, first))
       << "; its allowed weights" << (parts.O && takes_qkv(c.op) ? " and O's row" : "")
       << " are the softmax over every key with the forbidden weights zeroed";
    if (n > 1) os << " (and " << n - 1 << (n == 2 ? " other row)" : " other rows)");
    leave_to("row_stochastic", "a row masked after the softmax (not renormalised)", os.str());
  }
  return std::nullopt;
}

std::optional<Failure> require_refusal(const Outcome& o, const std::string& expected_type,
                                       const std::string& why) {
  if (o.kind == Outcome::Kind::refusal &&
      (expected_type.empty() || o.error_type == expected_type))
    return std::nullopt;
  Failure f;
  f.outcome = o;
  switch (o.kind) {
    case Outcome::Kind::refusal:
      f.summary = "refused " + why + " with " + o.error_type + ", expected " + expected_type;
      break;
    case Outcome::Kind::fault:
      f.summary = "did not refuse " + why + ": " + o.message;
      break;
    case Outcome::Kind::result:
      f.summary = "answered instead of refusing " + why;
      break;
  }
  return f;
}

std::optional<std::string> non_finite_input(const Case& c) {
  auto scan = [](const char* name, const DMatrix& M, bool minus_inf_ok) -> std::optional<std::string> {
    for (Index i = 0; i < M.rows(); ++i)
      for (Index j = 0; j < M.cols(); ++j) {
        const double x = M(i, j);
        if (std::isfinite(x) || (minus_inf_ok && x == -std::numeric_limits<double>::infinity()))
          continue;
        std::ostringstream os;
        os << name << "(" << i << ", " << j << ") = " << x;
        return os.str();
      }
    return std::nullopt;
  };
  if (auto w = scan("Q", c.Q, false)) return w;
  if (auto w = scan("K", c.K, false)) return w;
  if (auto w = scan("V", c.V, false)) return w;
  if (auto w = scan("X", c.X, false)) return w;
  return scan("S", c.S, true);
}

std::optional<Failure> check_non_finite_answer(const Outcome& o, const std::string& what) {
  if (o.kind == Outcome::Kind::refusal) {
    mark_judged_by_refusal();
    return std::nullopt;
  }
  Failure f;
  f.outcome = o;
  if (o.kind == Outcome::Kind::fault) {
    f.summary = "failed on the input " + what + " instead of refusing it: " + o.message;
    return f;
  }
  const bool reached = !o.A.allFinite() || !o.O.allFinite() || !o.logsumexp.allFinite();
  if (reached) return std::nullopt;
  f.summary = "answered only finite values for the input " + what +
              ": the bad value was swallowed (refuse it, or let it reach the answer as NaN)";
  return f;
}

}  // namespace attn::prop::detail

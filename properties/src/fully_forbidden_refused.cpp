// Section 32.2.4: if every key of a row is forbidden, the maximum over the
// allowed entries is -inf and the softmax is undefined (Lemma 2 excludes
// this case); it must be reported as an error, not as NaN, zeros or a
// uniform average. A kernel that documents another answer (NaN or zeros,
// FullyForbidden) is held to that answer instead, by `attnlab check`.
#include <cmath>
#include <sstream>
#include <utility>
#include <vector>

#include "attn/prop/batched.hpp"
#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "check_util.hpp"

namespace attn::prop {
namespace {

/// The rows of M listed in `keep`, in order.
DMatrix rows_of(const DMatrix& M, const std::vector<Index>& keep) {
  if (M.rows() == 0) return M;
  DMatrix out(static_cast<Index>(keep.size()), M.cols());
  for (std::size_t k = 0; k < keep.size(); ++k) out.row(static_cast<Index>(k)) = M.row(keep[k]);
  return out;
}

/// The rows of every fully forbidden query row of c (empty if none).
std::vector<Index> fully_forbidden_rows(const Case& c) {
  std::vector<Index> rows;
  for (Index i = 0; i < detail::T_q(c); ++i) {
    bool all = true;
    for (Index j = 0; j < detail::T_v(c); ++j) all = all && detail::forbidden(c, i, j);
    if (all) rows.push_back(i);
  }
  return rows;
}

/// The summary for a subject that refused or gave no answer where it
/// documents NaN or zeros for a fully forbidden row.
std::string convention_not_kept(const Outcome& o, FullyForbidden convention) {
  const char* wanted = convention == FullyForbidden::nan ? "NaN" : "0";
  return std::string("the kernel documents ") + wanted +
         " for a row with every key forbidden (--fully-forbidden " +
         fully_forbidden_name(convention) + "), yet it " +
         (o.kind == Outcome::Kind::refusal ? "refused: " + o.error_type + ": " + o.message
                                           : "gave no answer: " + o.message);
}

/// Under the NaN or zeros convention: the fully forbidden rows of O (and A
/// when returned) hold exactly that answer, and the other rows (query rows
/// are independent for the attention and softmax operations) agree with the
/// oracle within the bound.
std::optional<Failure> check_convention(Subject& s, const Case& c, const Outcome& o,
                                        FullyForbidden convention) {
  const std::vector<Index> rows = fully_forbidden_rows(c);
  const char* wanted = convention == FullyForbidden::nan ? "NaN" : "0";
  Failure f;
  f.outcome = o;
  f.marked_row = rows.empty() ? -1 : rows.front();
  if (o.kind != Outcome::Kind::result) {
    f.summary = convention_not_kept(o, convention);
    return f;
  }
  // The valid rows' shapes are the owner of answering's (judge_parts).
  if (const auto j = detail::judge_parts(o, c, s, "fully_forbidden"); j.stop()) return j.failure;
  auto holds = [&](double x) { return convention == FullyForbidden::nan ? std::isnan(x) : x == 0.0; };
  for (const char* name : {"O", "A"}) {
    const DMatrix& M = name[0] == 'O' ? o.O : o.A;
    if (M.rows() != detail::T_q(c)) continue;  // not returned by this operation or subject
    for (Index i : rows) {
      for (Index j = 0; j < M.cols(); ++j) {
        if (holds(M(i, j))) continue;
        std::ostringstream os;
        os << "every key is forbidden for row " << i << "; the kernel documents " << wanted
           << " there (--fully-forbidden " << fully_forbidden_name(convention) << "), yet "
           << name << "(" << i << ", " << j << ") = " << M(i, j);
        f.summary = os.str();
        f.marked_row = i;
        WorstEntry w;
        w.matrix = name;
        w.row = i;
        w.col = j;
        w.expected = convention == FullyForbidden::nan ? std::nan("") : 0.0;
        w.actual = M(i, j);
        w.error = std::abs(w.actual - (convention == FullyForbidden::nan ? 0.0 : w.expected));
        f.worst = w;
        return f;
      }
    }
  }
  // The other rows: the same case without the fully forbidden ones.
  if (!takes_qkv(c.op) && !takes_logits(c.op))
    return std::nullopt;  // multi-head: a query row is also a key; not separable
  std::vector<Index> keep;
  for (Index i = 0, k = 0; i < detail::T_q(c); ++i) {
    if (k < static_cast<Index>(rows.size()) && rows[static_cast<std::size_t>(k)] == i) {
      ++k;
      continue;
    }
    keep.push_back(i);
  }
  if (keep.empty()) return std::nullopt;
  Case rest = c;
  if (takes_qkv(c.op)) rest.Q = rows_of(c.Q, keep);
  else rest.S = rows_of(c.S, keep);
  if (c.mask) {
    Mask m(static_cast<Index>(keep.size()), c.mask->cols());
    for (std::size_t k = 0; k < keep.size(); ++k) m.row(static_cast<Index>(k)) = c.mask->row(keep[k]);
    rest.mask = m;
  }
  Outcome part = o;
  part.O = rows_of(o.O, keep);
  part.A = rows_of(o.A, keep);
  part.logsumexp = rows_of(o.logsumexp, keep);
  if (auto g = detail::check_answer(s, rest, part, {}, "fully_forbidden")) {
    g->summary = "on the rows with an allowed key: " + g->summary;
    if (g->worst && g->worst->row >= 0) g->worst->row = keep[static_cast<std::size_t>(g->worst->row)];
    g->outcome = o;
    g->marked_row = g->worst ? g->worst->row : -1;
    return g;
  }
  return std::nullopt;
}

/// The fully forbidden query rows of a batched case, as stacked rows of
/// its output (N, H, T_q, d_v): head (n, h)'s mask (the broadcast mask with
/// the causal one) forbids every key of row i.
std::vector<Index> batched_forbidden_rows(const Case& c) {
  std::vector<Index> rows;
  const Shape4 out = batched_output_shape(c);
  for (Index n = 0; n < out[0]; ++n)
    for (Index h = 0; h < out[1]; ++h) {
      const HeadSlice hs = batched_head(c, n, h);
      if (!hs.mask) continue;
      for (Index i = 0; i < out[2]; ++i)
        if (hs.mask->row(i).all()) rows.push_back((n * out[1] + h) * out[2] + i);
    }
  return rows;
}

/// "query row 0 of head (n = 1, h = 2) (bottom-right causal with T_q = 4 > T_v = 2:
/// rows 0 to 1 see no key)" for stacked row r; the cause is the mask otherwise.
std::string batched_row_words(const Case& c, Index r) {
  const auto& b = c.batched;
  const StackedRow at = stacked_row(batched_output_shape(c), r);
  std::ostringstream os;
  os << "query row " << at.i << " of head (n = " << at.n << ", h = " << at.h << ")";
  const Index T_q = b.Q[2], T_v = b.K[2];
  if (b.causal && b.bottom_right && at.i < T_q - T_v)
    os << " (bottom-right causal with T_q = " << T_q << " > T_v = " << T_v << ": "
       << (T_q - T_v == 1 ? std::string("row 0 sees")
                          : "rows 0 to " + std::to_string(T_q - T_v - 1) + " see")
       << " no key)";
  else
    os << " (the mask, with the causal mask if any, forbids every key)";
  return os.str();
}

/// fully_forbidden_refused on a batched_attention case, for each convention.
std::optional<Failure> check_batched(Subject& s, const Case& c, const Outcome& o,
                                     FullyForbidden convention, const std::string& expected_error) {
  const std::vector<Index> rows = batched_forbidden_rows(c);
  const Index r0 = rows.empty() ? -1 : rows.front();
  const std::string where = r0 >= 0 ? batched_row_words(c, r0) : "a query row";
  Failure f;
  f.outcome = o;
  f.marked_row = r0;
  const Shape4 out = batched_output_shape(c);
  if (convention == FullyForbidden::error) {
    if (o.kind == Outcome::Kind::refusal) {
      // The refusal must come from that row: the same inputs without the
      // mask and the causal flag have an answer.
      Case valid = c;
      valid.batched.mask_dims.clear();
      valid.mask.reset();
      valid.batched.causal = false;
      auto g = detail::require_specific_refusal(s, c, o, expected_error,
                                                where + " with every key forbidden", valid,
                                                "the same inputs without the mask and causal");
      if (g) g->marked_row = r0;
      return g;
    }
    if (o.kind == Outcome::Kind::fault) {
      f.summary = "did not refuse " + where + ": " + o.message;
      return f;
    }
    std::ostringstream os;
    os << "every key is forbidden for " << where << ", yet it returned outputs";
    if (r0 >= 0 && o.O.rows() == out[0] * out[1] * out[2]) {
      os << " [";
      for (Index l = 0; l < o.O.cols(); ++l) os << (l ? ", " : "") << o.O(r0, l);
      os << "]";
    }
    os << " instead of raising an error";
    f.summary = os.str();
    return f;
  }
  const char* wanted = convention == FullyForbidden::nan ? "NaN" : "0";
  if (o.kind != Outcome::Kind::result) {
    f.summary = convention_not_kept(o, convention);
    return f;
  }
  // The valid rows' shapes are the owner of answering's (judge_parts).
  if (const auto j = detail::judge_parts(o, c, s, "fully_forbidden"); j.stop()) return j.failure;
  auto holds = [&](double x) { return convention == FullyForbidden::nan ? std::isnan(x) : x == 0.0; };
  for (Index r : rows)
    for (Index l = 0; l < o.O.cols(); ++l) {
      if (holds(o.O(r, l))) continue;
      const StackedRow at = stacked_row(out, r);
      std::ostringstream os;
      os << "every key is forbidden for " << batched_row_words(c, r) << "; the kernel documents "
         << wanted << " there (--fully-forbidden " << fully_forbidden_name(convention) << "), yet O[n="
         << at.n << ", h=" << at.h << "](" << at.i << ", " << l << ") = " << o.O(r, l);
      f.summary = os.str();
      f.marked_row = r;
      WorstEntry w;
      w.matrix = "O[n=" + std::to_string(at.n) + ", h=" + std::to_string(at.h) + "]";
      w.row = at.i;
      w.col = l;
      w.expected = convention == FullyForbidden::nan ? std::nan("") : 0.0;
      w.actual = o.O(r, l);
      w.error = std::abs(w.actual - (convention == FullyForbidden::nan ? 0.0 : w.expected));
      f.worst = w;
      return f;
    }
  // The other rows of every head: the oracle on that head's rows with a key.
  const ref::PrecisionModel model = detail::precision_model(s.precision());
  for (Index n = 0; n < out[0]; ++n)
    for (Index h = 0; h < out[1]; ++h) {
      const HeadSlice hs = batched_head(c, n, h);
      const Index first = (n * out[1] + h) * out[2];
      std::vector<Index> keep;
      for (Index i = 0; i < out[2]; ++i)
        if (!hs.mask || !hs.mask->row(i).all()) keep.push_back(i);
      if (keep.empty()) continue;
      DMatrix Q(Index(keep.size()), hs.Q.cols()), O(Index(keep.size()), out[3]);
      Mask M(Index(keep.size()), hs.K.rows());
      for (std::size_t k = 0; k < keep.size(); ++k) {
        Q.row(Index(k)) = hs.Q.row(keep[k]);
        O.row(Index(k)) = o.O.row(first + keep[k]);
        if (hs.mask) M.row(Index(k)) = hs.mask->row(keep[k]);
      }
      std::optional<Mask> mask;
      if (hs.mask) mask = M;
      const auto exact = ref::exact_attention(Q, hs.K, hs.V, mask, c.batched.scale);
      const auto bound = ref::attention_error_bound(Q, hs.K, hs.V, exact, model, c.batched.scale);
      // Back in the head's row order; the fully forbidden rows (checked
      // above) compare as exact zeros.
      DMatrix actual = DMatrix::Zero(out[2], out[3]), bound_full = DMatrix::Zero(out[2], out[3]);
      ref::RealMatrix exact_full(out[2], out[3]);
      for (std::size_t k = 0; k < keep.size(); ++k)
        for (Index l = 0; l < out[3]; ++l) {
          actual(keep[k], l) = O(Index(k), l);
          exact_full(keep[k], l) = exact.O(Index(k), l);
          bound_full(keep[k], l) = bound.O(Index(k), l);
        }
      const std::string name = "O[n=" + std::to_string(n) + ", h=" + std::to_string(h) + "]";
      if (auto g = detail::compare_with_bound(name, actual, exact_full, bound_full)) {
        g->summary = "on the rows with an allowed key: " + g->summary;
        g->outcome = o;
        g->marked_row = first + (g->worst ? g->worst->row : 0);
        return g;
      }
    }
  return std::nullopt;
}

}  // namespace

Property fully_forbidden_refused(Operation op, std::string expected_error) {
  return fully_forbidden_row(op, FullyForbidden::error, std::move(expected_error));
}

Property fully_forbidden_row(Operation op, FullyForbidden convention, std::string expected_error) {
  Property p;
  p.id = "fully_forbidden_refused";
  p.kind = PropertyKind::refusal;
  p.hint = {"a query row with every key forbidden is not refused",
            "Lemma 2 needs at least one allowed key per row; for a row with none, the softmax "
            "is undefined (0/0). Check for such rows and raise an error: NaN, zeros or a "
            "uniform average are all silent wrong answers.",
            "Lemma 2, section 32.2.4"};
  p.title = "a query row with every key forbidden is refused with an error";
  p.source = "Lemma 2 and section 32.2.4";
  p.op = op;
  p.generator = [](const GenConfig& cfg) { return gen_case(cfg, MaskPolicy::fully_forbidden); };
  if (convention != FullyForbidden::error) {
    p.id = std::string("fully_forbidden_") + fully_forbidden_name(convention);
    p.title = std::string("a query row with every key forbidden gets ") +
              (convention == FullyForbidden::nan ? "NaN" : "zeros") +
              " (the kernel's documented convention), the other rows their values";
    p.source = "Lemma 2 and section 32.2.4 (the undefined row); the kernel's documentation";
    p.kind = PropertyKind::value;
    p.hint = convention == FullyForbidden::nan
                 ? PropertyHint{"a query row with every key forbidden does not come out NaN",
                                "The kernel was checked with --fully-forbidden nan: such a row "
                                "must be NaN in A and O (the 0/0 of a softmax over no key), not "
                                "refused, not zeros, not a uniform row.",
                                "Lemma 2, section 32.2.4; the kernel's documented convention"}
                 : PropertyHint{"a query row with every key forbidden does not come out as zeros",
                                "The kernel was checked with --fully-forbidden zeros: such a row "
                                "must be 0 in A and O, not refused, not NaN, not a uniform row.",
                                "Lemma 2, section 32.2.4; the kernel's documented convention"};
  }
  p.check = [expected_error, convention](Subject& s, const Case& c) -> std::optional<Failure> {
    const Outcome o = s.run(c);
    if (c.op == Operation::batched_attention)
      return check_batched(s, c, o, convention, expected_error);
    if (convention != FullyForbidden::error) return check_convention(s, c, o, convention);
    Index row = -1;
    for (Index i = 0; i < detail::T_q(c) && row < 0; ++i) {
      bool all = true;
      for (Index j = 0; j < detail::T_v(c); ++j)
        all = all && detail::forbidden(c, i, j);
      if (all) row = i;
    }
    if (o.kind == Outcome::Kind::refusal) {
      // The refusal must come from the fully forbidden row: the same case
      // with that row's keys allowed has an answer. (A submission that
      // refuses everything, a skeleton, earns nothing here.)
      Case allowed = c;
      if (row >= 0) {
        if (allowed.mask) allowed.mask->row(row).setConstant(false);
        if (takes_logits(c.op))
          for (Index j = 0; j < allowed.S.cols(); ++j)
            if (allowed.S(row, j) == -HUGE_VAL) allowed.S(row, j) = 0.0;
      }
      auto f = detail::require_specific_refusal(
          s, c, o, expected_error, "row " + std::to_string(row) + " with every key forbidden",
          allowed, "the same case with that row's keys allowed");
      // The refused row, unless the failure is about the valid case (its worst entry's row).
      if (f && !f->answered) f->marked_row = row;
      return f;
    }
    Failure f;
    f.outcome = o;
    f.marked_row = row;
    if (o.kind == Outcome::Kind::fault) {
      // What happened, as the fault says it (crashed, timed out, a malformed reply...).
      f.summary = "did not refuse row " + std::to_string(row) + ": " + o.message;
    } else {
      std::ostringstream os;
      os << "every key is forbidden for row " << row << ", yet it returned ";
      const bool weights = o.A.rows() > row && row >= 0;
      const DMatrix& shown = weights ? o.A : o.O;
      os << (weights ? "weights" : "outputs");
      if (shown.rows() > row && row >= 0) {
        os << " [";
        for (Index j = 0; j < shown.cols(); ++j) os << (j ? ", " : "") << shown(row, j);
        os << "]";
      }
      os << " instead of raising an error";
      f.summary = os.str();
    }
    return f;
  };
  return p;
}

}  // namespace attn::prop

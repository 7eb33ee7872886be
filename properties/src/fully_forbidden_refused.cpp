// Section 32.2.4: if every key of a row is forbidden, the maximum over the
// allowed entries is -inf and the softmax is undefined (Lemma 2 excludes
// this case); it must be reported as an error, not as NaN, zeros or a
// uniform average. A kernel that documents another answer (NaN or zeros,
// FullyForbidden) is held to that answer instead, by `attnlab check`.
#include <cmath>
#include <sstream>
#include <vector>

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
    f.summary = std::string("the kernel documents ") + wanted +
                " for a row with every key forbidden (--fully-forbidden " +
                fully_forbidden_name(convention) + "), yet it " +
                (o.kind == Outcome::Kind::refusal ? "refused: " + o.error_type + ": " + o.message
                                                  : "gave no answer: " + o.message);
    return f;
  }
  if (auto shape = detail::require_answer(o, c, s)) return shape;
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
  if (!takes_qkv(c.op) && c.op != Operation::softmax_rows && c.op != Operation::masked_softmax)
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
  if (auto g = detail::check_answer(s, rest, part)) {
    g->summary = "on the rows with an allowed key: " + g->summary;
    if (g->worst && g->worst->row >= 0) g->worst->row = keep[static_cast<std::size_t>(g->worst->row)];
    g->outcome = o;
    g->marked_row = g->worst ? g->worst->row : -1;
    return g;
  }
  return std::nullopt;
}

}  // namespace

Property fully_forbidden_refused(Operation op, std::string expected_error, FullyForbidden convention) {
  Property p;
  p.id = "fully_forbidden_refused";
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
  }
  p.check = [expected_error, convention](Subject& s, const Case& c) -> std::optional<Failure> {
    const Outcome o = s.run(c);
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
        if (c.op == Operation::softmax_rows || c.op == Operation::masked_softmax)
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

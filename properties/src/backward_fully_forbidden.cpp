// Section 32.2.4 and Lemma 2: a query row whose every key is forbidden has
// no softmax, hence no gradient; the backward pass refuses it as the forward
// does (FullyMaskedRowError in the library). A kernel that documents another
// answer (attnlab check --fully-forbidden) is held to its gradient instead:
// zeros (O_i = 0 whatever Q, K, V: the row's dQ is exactly 0 and it adds
// nothing to dK and dV, so the other gradients are those of the case without
// that row), or NaN (the row's dQ is NaN; the NaN weights reach every key's
// dK and dV through P^T dO, so they are not judged).
#include <cmath>
#include <sstream>

#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "backward_check.hpp"

namespace attn::prop {

namespace {

std::vector<Index> forbidden_rows(const Case& c) {
  std::vector<Index> rows;
  if (!c.mask) return rows;
  for (Index i = 0; i < c.mask->rows(); ++i)
    if (c.mask->row(i).all()) rows.push_back(i);
  return rows;
}

std::string row_text(const DMatrix& M, Index i) {
  std::ostringstream os;
  os << "[";
  if (i >= 0 && i < M.rows())
    for (Index l = 0; l < M.cols(); ++l) os << (l ? ", " : "") << M(i, l);
  os << "]";
  return os.str();
}

/// The rows of M listed in `keep`.
DMatrix rows_of(const DMatrix& M, const std::vector<Index>& keep) {
  DMatrix out(Index(keep.size()), M.cols());
  for (std::size_t k = 0; k < keep.size(); ++k) out.row(Index(k)) = M.row(keep[k]);
  return out;
}

std::optional<Failure> check_convention(Subject& s, const Case& c, const Outcome& o,
                                        FullyForbidden convention) {
  const std::vector<Index> rows = forbidden_rows(c);
  const char* wanted = convention == FullyForbidden::nan ? "NaN" : "0";
  if (o.kind != Outcome::Kind::result) {
    Failure f;
    f.outcome = o;
    f.marked_row = rows.empty() ? -1 : rows.front();
    f.summary = std::string("the kernel documents ") + wanted +
                " for a row with every key forbidden (--fully-forbidden " +
                fully_forbidden_name(convention) + "), yet it " +
                (o.kind == Outcome::Kind::refusal ? "refused: " + o.error_type + ": " + o.message
                                                  : "gave no answer: " + o.message);
    return f;
  }
  if (auto f = detail::require_gradients(o, c)) return f;
  for (Index i : rows)
    for (Index l = 0; l < o.dQ.cols(); ++l) {
      const double x = o.dQ(i, l);
      if (convention == FullyForbidden::nan ? std::isnan(x) : x == 0.0) continue;
      Failure f;
      std::ostringstream os;
      os << "every key is forbidden for row " << i << "; the kernel documents " << wanted
         << " there (--fully-forbidden " << fully_forbidden_name(convention) << "), yet dQ(" << i
         << ", " << l << ") = " << x;
      f.summary = os.str();
      f.marked_row = i;
      f.worst = WorstEntry{"dQ", i, l, convention == FullyForbidden::nan ? std::nan("") : 0.0, x,
                           convention == FullyForbidden::nan ? std::abs(x) : std::abs(x), 0.0};
      f.outcome = o;
      return f;
    }
  if (convention == FullyForbidden::nan) return std::nullopt;
  // Zeros: the other rows' dQ, and dK, dV, are the gradients of the case without the row.
  std::vector<Index> keep;
  for (Index i = 0, k = 0; i < c.Q.rows(); ++i) {
    if (k < Index(rows.size()) && rows[std::size_t(k)] == i) {
      ++k;
      continue;
    }
    keep.push_back(i);
  }
  if (keep.empty()) return std::nullopt;
  Case rest = c;
  rest.Q = rows_of(c.Q, keep);
  rest.dO = rows_of(c.dO, keep);
  Mask m(Index(keep.size()), c.mask->cols());
  for (std::size_t k = 0; k < keep.size(); ++k) m.row(Index(k)) = c.mask->row(keep[k]);
  rest.mask = m;
  Outcome part = o;
  part.dQ = rows_of(o.dQ, keep);
  const detail::ExpectedGradients e = detail::expected_gradients(rest, s.precision());
  if (auto g = detail::compare_gradients(rest, part, e)) {
    g->summary = "without the fully forbidden rows: " + g->summary;
    if (g->worst && g->worst->matrix == "dQ") g->worst->row = keep[std::size_t(g->worst->row)];
    g->marked_row = g->worst && g->worst->matrix == "dQ" ? g->worst->row : -1;
    g->outcome = o;
    return g;
  }
  return std::nullopt;
}

}  // namespace

Property backward_fully_forbidden(std::string expected_error, FullyForbidden convention) {
  Property p;
  p.id = "backward_fully_forbidden_refused";
  p.kind = PropertyKind::refusal;
  p.hint = {"a query row with every key forbidden is not refused by the backward pass",
            "The softmax of such a row is undefined, and so are its gradients: raise an error "
            "as the forward does.",
            "Lemma 2, section 32.2.4"};
  p.title = "the backward pass refuses a query row with every key forbidden";
  p.source = "Lemma 2 and section 32.2.4 (the softmax of the row is undefined)";
  p.op = Operation::attention_backward;
  if (convention != FullyForbidden::error) {
    p.id = std::string("backward_fully_forbidden_") + fully_forbidden_name(convention);
    p.title = std::string("a query row with every key forbidden gets the gradient of the kernel's "
                          "documented convention (") +
              (convention == FullyForbidden::nan ? "NaN in dQ" : "0 in dQ, nothing in dK and dV") +
              ")";
    p.source = "Lemma 2 and section 32.2.4 (the undefined row); the kernel's documentation";
    p.kind = PropertyKind::value;
    p.hint = convention == FullyForbidden::nan
                 ? PropertyHint{"a query row with every key forbidden does not get the NaN "
                                "gradient of its convention",
                                "Checked with --fully-forbidden nan: that row's dQ is NaN (its NaN "
                                "weights reach dK and dV through P^T dO, which are not judged "
                                "there).",
                                "Lemma 2, section 32.2.4; the kernel's documented convention"}
                 : PropertyHint{"a query row with every key forbidden does not get the zero "
                                "gradient of its convention",
                                "Checked with --fully-forbidden zeros: that row's dQ is 0, and it "
                                "adds nothing to dK and dV.",
                                "Lemma 2, section 32.2.4; the kernel's documented convention"};
  }
  p.generator = [](const GenConfig& cfg) { return gen_case(cfg, MaskPolicy::fully_forbidden); };
  p.check = [expected_error, convention](Subject& s, const Case& c) -> std::optional<Failure> {
    const Outcome o = s.run(c);
    if (convention != FullyForbidden::error) return check_convention(s, c, o, convention);
    const std::vector<Index> rows = forbidden_rows(c);
    const Index row = rows.empty() ? -1 : rows.front();
    if (o.kind == Outcome::Kind::refusal) {
      // The refusal must come from that row: the case with its keys allowed has an answer.
      Case allowed = c;
      for (Index i : rows) allowed.mask->row(i).setConstant(false);
      auto f = detail::require_specific_refusal(
          s, c, o, expected_error, "row " + std::to_string(row) + " with every key forbidden",
          allowed, "the same case with that row's keys allowed");
      if (f && !f->answered) f->marked_row = row;
      return f;
    }
    Failure f;
    f.outcome = o;
    f.marked_row = row;
    if (o.kind == Outcome::Kind::fault)
      f.summary = "did not refuse row " + std::to_string(row) + ": " + o.message;
    else
      f.summary = "every key is forbidden for row " + std::to_string(row) +
                  ", yet it returned gradients (dQ's row " + row_text(o.dQ, row) +
                  ") instead of raising an error";
    return f;
  };
  return p;
}

}  // namespace attn::prop

#include "attn/prop/verdict.hpp"
#include "attn/prop/case_shape.hpp"

#include "attn/prop/batched.hpp"
#include "check_util.hpp"
#include "attn/prop/operation_table.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iomanip>
#include <string>

namespace attn::prop {

namespace {

/// `text` with every line after the first indented by `indent`, so a
/// message of several lines (a malformed reply and the reply, a crash and
/// the end of its stderr) stays inside its block.
std::string indented(const std::string& text, const std::string& indent = "  ") {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    out += ch;
    if (ch == '\n') out += indent;
  }
  return out;
}

/// The shortest text that reads back as the same double ("0.3302", not
/// "0.33019999999999999"); "NaN", "Inf", "-Inf" for the others.
std::string value_text(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Inf" : "-Inf";
  char buf[40];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

// How a counterexample of each operation is described in a verdict: its
// shapes (shape_line) and, where the answer stacks several matrices, the
// one a marked row lies in (print_outcome).

std::string mask_builder_shapes(const Case& c) {
  return "T_q=" + std::to_string(c.mask_shape.T_q) + ", T_v=" + std::to_string(c.mask_shape.T_v);
}

std::string multi_head_shapes(const Case& c) {
  const auto& h0 = c.heads.empty() ? HeadProjections{} : c.heads.front();
  return "T=" + std::to_string(c.X.rows()) + ", d_model=" + std::to_string(c.X.cols()) +
         ", h=" + std::to_string(c.heads.size()) + ", d_k=" + std::to_string(h0.W_Q.cols()) +
         ", d_v=" + std::to_string(h0.W_V.cols()) + ", d_out=" + std::to_string(c.W_O.cols());
}

std::string batched_shapes(const Case& c) {
  const auto& b = c.batched;
  return "N=" + std::to_string(b.Q[0]) + ", H=" + std::to_string(b.Q[1]) +
         ", H_kv=" + std::to_string(b.K[1]) + ", T_q=" + std::to_string(b.Q[2]) +
         ", T_v=" + std::to_string(b.K[2]) + ", d_k=" + std::to_string(b.Q[3]) +
         ", d_v=" + std::to_string(b.V[3]);
}

std::string qkv_shapes(const Case& c) {
  return "T_q=" + std::to_string(c.Q.rows()) + ", T_v=" + std::to_string(c.K.rows()) +
         ", d_k=" + std::to_string(c.Q.cols()) + ", d_v=" + std::to_string(c.V.cols());
}

std::string logits_shapes(const Case& c) {
  return "T_q=" + std::to_string(c.S.rows()) + ", T_v=" + std::to_string(c.S.cols());
}

/// The head of the marked (stacked) row, as its own T_q x d_v matrix; false
/// (nothing printed) when O is not (N, H, T_q, d_v).
bool print_batched_O_of_row(std::ostream& os, const Outcome& o, const Case& c, Index marked_row) {
  const Shape4 out = batched_output_shape(c);
  if (o.O.rows() != out[0] * out[1] * out[2] || o.O.cols() != out[3]) return false;
  const StackedRow at = stacked_row(out, marked_row);
  print_matrix(os, "  answered O[n=" + std::to_string(at.n) + ", h=" + std::to_string(at.h) + "]",
               tensor_slice(o.O, out, at.n, at.h), at.i);
  return true;
}

struct VerdictRow {
  Operation op;
  std::string (*shape_line)(const Case& c);
  /// Prints the answered O of the marked row alone and returns true, or
  /// returns false; nullptr: O printed whole.
  bool (*answered_O_of_row)(std::ostream& os, const Outcome& o, const Case& c, Index marked_row);
};

constexpr VerdictRow kVerdictRows[] = {
    {Operation::softmax_rows, logits_shapes, nullptr},
    {Operation::masked_softmax, logits_shapes, nullptr},
    {Operation::attention, qkv_shapes, nullptr},
    {Operation::attention_tiled, qkv_shapes, nullptr},
    {Operation::multi_head_attention, multi_head_shapes, nullptr},
    {Operation::causal_mask, mask_builder_shapes, nullptr},
    {Operation::padding_mask, mask_builder_shapes, nullptr},
    {Operation::batched_attention, batched_shapes, print_batched_O_of_row},
    {Operation::attention_backward, qkv_shapes, nullptr},
};
static_assert(detail::one_row_per_operation(kVerdictRows),
              "kVerdictRows: one row per OperationSpec, in the enumerator's order");

void print_outcome(std::ostream& os, const Outcome& o, Index marked_row, const Case* c) {
  switch (o.kind) {
    case Outcome::Kind::result:
      if (c && marked_row >= 0 && detail::row_of(kVerdictRows, c->op).answered_O_of_row &&
          detail::row_of(kVerdictRows, c->op).answered_O_of_row(os, o, *c, marked_row))
        break;
      if (o.O.size() > 0 || o.O.rows() > 0) print_matrix(os, "  answered O", o.O, marked_row);
      if (o.A.rows() > 0) print_matrix(os, "  answered A", o.A, marked_row);
      if (o.mask.size() > 0) print_mask(os, "  answered mask (x = forbidden)", o.mask, marked_row);
      if (o.dQ.rows() > 0 || o.dK.rows() > 0) {  // attention_backward: the three gradients
        print_matrix(os, "  answered dQ", o.dQ, marked_row);
        print_matrix(os, "  answered dK", o.dK);
        print_matrix(os, "  answered dV", o.dV);
      }
      if (o.logsumexp.size() > 0) {
        const DMatrix lse = o.logsumexp.transpose();
        print_matrix(os, "  answered logsumexp", lse);
      }
      break;
    case Outcome::Kind::refusal:
      os << "  answered: refused with " << o.error_type << ": " << indented(o.message) << "\n";
      break;
    case Outcome::Kind::fault:
      os << "  answered: fault: " << indented(o.message) << "\n";
      break;
  }
}

}  // namespace

std::string shape_line(const Case& c) { return detail::row_of(kVerdictRows, c.op).shape_line(c); }

void show_failure_case(Verdict& v) {
  if (v.failure && v.failure->shown) {
    v.counterexample = std::move(*v.failure->shown);
    v.failure->shown.reset();
  }
}

void print_left_cases(std::ostream& os, const Verdict& v, const std::string& indent) {
  for (const auto& [tag, n] : v.regimes)
    if (tag.rfind(detail::kLeftTag, 0) == 0)
      os << indent << tag << " (" << n << " case" << (n == 1 ? "" : "s") << ")\n";
}

void print_verdict(std::ostream& os, const Verdict& v) {
  const char* status = "FAIL";
  switch (v.status) {
    case VerdictStatus::passed: status = "PASS"; break;
    case VerdictStatus::failed: status = "FAIL"; break;
    case VerdictStatus::error: status = "ERROR"; break;
    case VerdictStatus::not_run: status = "NOT RUN"; break;
    case VerdictStatus::skipped: status = "SKIP"; break;
  }
  os << "[" << status << "] " << v.property_id << ": " << v.title << "  (" << v.source << ")\n";
  if (v.passed()) {
    int left = 0;
    for (const auto& [tag, n] : v.regimes)
      if (tag.rfind(detail::kLeftTag, 0) == 0) left += n;
    // Edge cases are not in v.cases; a left one is tagged too.
    os << "  " << std::max(0, v.cases - left) << " cases passed\n";
    print_left_cases(os, v);
    return;
  }
  if (!v.error.empty()) os << "  " << indented(v.error) << "\n";
  if (v.status == VerdictStatus::not_run) {
    if (v.cases > 0)
      os << "  not run to the end: " << v.cases << " case" << (v.cases == 1 ? "" : "s")
         << " passed, then " << v.stop_reason << ", so the other cases were not run\n";
    else
      os << "  not run because " << v.stop_reason << "\n";
    return;
  }
  if (!v.failure) return;
  const Failure& f = *v.failure;
  os << "  " << indented(f.summary) << "\n";
  if (!v.stop_reason.empty()) {
    os << "  stopped early: " << v.stop_reason << "; the rest of this property was not run";
    if (v.counterexample && v.generated) os << ", and the case below may not be fully shrunk";
    os << "\n";
  }
  if (v.counterexample) {
    const Case& c = *v.counterexample;
    if (v.generated)
      os << "  counterexample after " << v.cases << " passing cases, shrunk to " << shape_line(c)
         << ":\n";
    else
      os << "  on the text's example (" << shape_line(c) << "):\n";
    print_inputs(os, c, f.marked_row);
  }
  if (f.outcome)
    print_outcome(os, *f.outcome, f.marked_row,
                  f.answered ? &*f.answered : v.counterexample ? &*v.counterexample : nullptr);
  if (f.worst) {
    const WorstEntry& w = *f.worst;
    // Row -1 is "no row" (a column sum, a scalar such as <dQ, E>): no -1 printed.
    os << "  worst entry: " << w.matrix;
    if (w.row >= 0) os << "[" << w.row << (w.col >= 0 ? ", " + std::to_string(w.col) : "") << "]";
    else if (w.col >= 0) os << "[column " << w.col << "]";
    const bool both_nan = std::isnan(w.expected) && std::isnan(w.actual);
    if (both_nan) {
      // A metamorphic property compares two answers: both NaN is no answer at
      // all (never "expected NaN, got NaN").
      os << ": both answers are NaN (neither is a number)";
    } else {
      os << ": expected " << value_text(w.expected) << ", got " << value_text(w.actual);
    }
    if (both_nan) {
      // said above
    } else if (std::isnan(w.actual)) {
      os << "; the answer is NaN";
    } else if (std::isinf(w.actual) && !std::isinf(w.expected)) {
      os << "; the answer is not finite";
    } else {
      os << std::setprecision(3) << "; error " << w.error;
      if (w.bound > 0) os << " > bound " << w.bound << " (" << w.error / w.bound << "x)";
      os << std::setprecision(6);
    }
    os << "\n";
  }
  if (v.generated) os << "  seed " << v.seed << " replays this run\n";
  print_left_cases(os, v);
}

void print_regimes(std::ostream& os, const Verdict& v) {
  if (v.cases <= 0) return;
  for (const auto& [tag, n] : v.regimes)
    os << "    " << std::setw(5) << std::fixed << std::setprecision(1) << 100.0 * n / v.cases
       << "%  " << tag << "\n";
  os << std::defaultfloat << std::setprecision(6);
}

}  // namespace attn::prop

#include "attn/prop/case.hpp"

#include "attn/prop/batched.hpp"

#include <algorithm>
#include <charconv>
#include <functional>
#include <vector>
#include <iomanip>
#include <map>
#include <sstream>

#include "attn/prop/operation_table.hpp"

namespace attn::prop {

namespace {

/// Shortest text that reads back as the same double ("0.1", "-inf", "nan").
std::string number_text(double x) {
  char buf[40];
  auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

/// The indices shown of a dimension of n: all up to kShownAtMost, else the
/// first kShownHead, `keep` (the marked row, if any) and the last kShownTail,
/// with -1 where a run is left out.
constexpr Index kShownAtMost = 12, kShownHead = 6, kShownTail = 2;
std::vector<Index> shown_indices(Index n, Index keep) {
  std::vector<Index> out;
  for (Index k = 0; k < n; ++k) {
    const bool shown = n <= kShownAtMost || k < kShownHead || k >= n - kShownTail || k == keep;
    if (shown)
      out.push_back(k);
    else if (out.empty() || out.back() != -1)
      out.push_back(-1);
  }
  return out;
}

void print_rows(std::ostream& os, const std::string& name, Index rows, Index cols,
                Index marked_row, const std::function<std::string(Index, Index)>& cell) {
  os << name << " (" << rows << "x" << cols << ")";
  if (rows == 0 || cols == 0) {
    os << " = []\n";
    return;
  }
  // A large matrix shows its first and last rows and columns (and the
  // marked row), "..." for the rest: a report stays readable and small.
  const std::vector<Index> shown_rows = shown_indices(rows, marked_row), shown_cols = shown_indices(cols, -1);
  os << (shown_rows.size() < std::size_t(rows) || shown_cols.size() < std::size_t(cols) ? " (excerpt) =\n" : " =\n");
  std::map<std::pair<Index, Index>, std::string> text;
  std::size_t width = 3;  // "..."
  for (Index i : shown_rows)
    for (Index j : shown_cols)
      if (i >= 0 && j >= 0) width = std::max(width, (text[{i, j}] = cell(i, j)).size());
  for (Index i : shown_rows) {
    os << "    [";
    for (std::size_t k = 0; k < shown_cols.size(); ++k) {
      const Index j = shown_cols[k];
      os << (k ? "  " : "") << std::setw(int(width)) << (i < 0 || j < 0 ? std::string("...") : text[{i, j}]);
    }
    os << "]" << (i >= 0 && i == marked_row ? "   <- row " + std::to_string(i) : "") << "\n";
  }
}

}  // namespace

namespace {

std::string dims_text(const std::vector<Index>& d) {
  std::string t = "(";
  for (std::size_t k = 0; k < d.size(); ++k) t += (k ? ", " : "") + std::to_string(d[k]);
  return t + ")";
}

/// A batched case slice by slice: "Q[n=0, h=1]", K and V per kv head ("K[n=0, g=1]"), the
/// mask per leading index, then the scale and the causal flag. `marked_row`
/// is a stacked row of the output (N, H, T_q, d_v): its query row is flagged
/// in Q's slice (n, h) and in the mask slice that head reads.
void print_batched_inputs(std::ostream& os, const Case& c, Index marked_row) {
  const auto& b = c.batched;
  const Shape4 out = {b.Q[0], b.Q[1], b.Q[2], b.V[3]};
  const StackedRow at = stacked_row(out, marked_row);
  const bool marked = marked_row >= 0;
  os << "  Q " << shape_text(b.Q) << ", K " << shape_text(b.K) << ", V " << shape_text(b.V)
     << "; H_kv = " << b.K[1];
  if (b.K[1] >= 1 && b.Q[1] % b.K[1] == 0)
    os << ": query head h uses kv head g = h / " << b.Q[1] / b.K[1];
  os << "\n";
  auto slices = [&](const char* name, const DMatrix& M, const Shape4& s, bool query) {
    if (M.rows() != s[0] * s[1] * s[2] || M.cols() != s[3]) {
      print_matrix(os, std::string("  ") + name + " (stacked)", M);
      return;
    }
    for (Index n = 0; n < s[0]; ++n)
      for (Index h = 0; h < s[1]; ++h) {
        const bool here = query && marked && n == at.n && h == at.h;
        print_matrix(os, "  " + std::string(name) + "[n=" + std::to_string(n) +
                             (query ? ", h=" : ", g=") + std::to_string(h) + "]",
                     tensor_slice(M, s, n, h), here ? at.i : -1);
      }
  };
  slices("Q", c.Q, b.Q, true);
  slices("K", c.K, b.K, false);
  slices("V", c.V, b.V, false);
  if (b.mask_dims.empty() || !c.mask) {
    os << "  mask = none\n";
  } else {
    os << "  mask " << dims_text(b.mask_dims) << " (x = forbidden)\n";
    Shape4 d = {1, 1, 1, 1};
    const std::size_t rank = b.mask_dims.size();
    for (std::size_t k = 0; k < rank && rank <= 4; ++k) d[4 - rank + k] = b.mask_dims[k];
    if (c.mask->rows() != d[0] * d[1] * d[2] || c.mask->cols() != d[3]) {
      print_mask(os, "  mask (stacked)", *c.mask);
    } else {
      for (Index n = 0; n < d[0]; ++n)
        for (Index h = 0; h < d[1]; ++h) {
          std::string name = "  mask";
          if (rank == 4)
            name += "[" + std::string(d[0] == 1 ? "n=any" : "n=" + std::to_string(n)) + ", " +
                    (d[1] == 1 ? "h=any" : "h=" + std::to_string(h)) + "]";
          const bool here = marked && (d[0] == 1 || n == at.n) && (d[1] == 1 || h == at.h);
          print_mask(os, name, c.mask->middleRows((n * d[1] + h) * d[2], d[2]),
                     here && d[2] > 1 ? at.i : -1);
        }
    }
  }
  os << "  scale = ";
  if (b.scale) {
    os << number_text(*b.scale);
  } else {
    os << "None (1/sqrt(d_k))";
  }
  os << "; causal = " << (b.causal ? "True" : "False");
  if (b.causal) os << ", alignment = " << (b.bottom_right ? "bottom_right" : "top_left");
  os << "\n";
}

}  // namespace

void print_matrix(std::ostream& os, const std::string& name, const DMatrix& M, Index marked_row) {
  print_rows(os, name, M.rows(), M.cols(), marked_row,
             [&](Index i, Index j) { return number_text(M(i, j)); });
}

void print_mask(std::ostream& os, const std::string& name, const Mask& M, Index marked_row) {
  print_rows(os, name, M.rows(), M.cols(), marked_row,
             [&](Index i, Index j) { return std::string(M(i, j) ? "x" : "."); });
}

CaseSizes case_sizes(const Case& c) {
  const unsigned inputs = operation_spec(c.op).inputs;
  CaseSizes s;
  if (inputs & input::mask_shape) {
    s.T_q = c.mask_shape.T_q;
    s.T_v = c.mask_shape.T_v;
  } else if (inputs & input::projections) {
    s.T_q = s.T_v = c.X.rows();
    if (!c.heads.empty()) {
      s.d_k = c.heads.front().W_Q.cols();
      s.d_v = c.heads.front().W_V.cols();
    }
    s.heads = Index(c.heads.size());
  } else if (inputs & input::batched) {
    s.T_q = c.batched.Q[2];
    s.T_v = c.batched.K[2];
    s.d_k = c.batched.Q[3];
    s.d_v = c.batched.V[3];
    s.heads = c.batched.Q[1];
  } else if (inputs & input::qkv) {
    s.T_q = c.Q.rows();
    s.T_v = c.K.rows();
    s.d_k = c.Q.cols();
    s.d_v = c.V.cols();
  } else {
    s.T_q = c.S.rows();
    s.T_v = c.S.cols();
  }
  return s;
}

namespace {

// How each operation's inputs are printed in a counterexample (print_inputs).
// Not the params: they are a property's knobs, not inputs of the subject,
// and each property says what they did in its failure's summary (the shifts
// c_i, sqrt(d_k), the permutation, the mismatch); a bare "params = [0]"
// explained nothing.

void print_optional_mask(std::ostream& os, const Case& c, Index marked_row) {
  if (c.mask)
    print_mask(os, "  mask (x = forbidden)", *c.mask, marked_row);
  else
    os << "  mask = none\n";
}

void print_logits_inputs(std::ostream& os, const Case& c, Index marked_row) {
  print_matrix(os, "  S", c.S, marked_row);
  print_optional_mask(os, c, marked_row);
}

void print_qkv(std::ostream& os, const Case& c, Index marked_row) {
  print_matrix(os, "  Q", c.Q, marked_row);
  print_matrix(os, "  K", c.K);
  print_matrix(os, "  V", c.V);
}

void print_qkv_inputs(std::ostream& os, const Case& c, Index marked_row) {
  print_qkv(os, c, marked_row);
  print_optional_mask(os, c, marked_row);
}

void print_backward_inputs(std::ostream& os, const Case& c, Index marked_row) {
  print_qkv(os, c, marked_row);
  print_matrix(os, "  dO", c.dO, marked_row);
  print_optional_mask(os, c, marked_row);
}

void print_multi_head_inputs(std::ostream& os, const Case& c, Index marked_row) {
  print_matrix(os, "  X", c.X, marked_row);
  for (std::size_t h = 0; h < c.heads.size(); ++h) {
    const std::string head = "  head " + std::to_string(h) + ": ";
    print_matrix(os, head + "W_Q", c.heads[h].W_Q);
    print_matrix(os, head + "W_K", c.heads[h].W_K);
    print_matrix(os, head + "W_V", c.heads[h].W_V);
  }
  print_matrix(os, "  W_O", c.W_O);
  print_optional_mask(os, c, marked_row);
}

// The mask builders: the call, with the builder's own argument.
void print_causal_mask_call(std::ostream& os, const Case& c, Index) {
  const auto& m = c.mask_shape;
  os << "  " << operation_name(c.op) << "(T_q = " << m.T_q << ", T_v = " << m.T_v
     << ", alignment = " << (m.bottom_right ? "bottom_right" : "top_left") << ")\n";
}

void print_padding_mask_call(std::ostream& os, const Case& c, Index) {
  const auto& m = c.mask_shape;
  os << "  " << operation_name(c.op) << "(T_q = " << m.T_q << ", T_v = " << m.T_v
     << ", key_length = " << m.key_length << ")\n";
}

struct InputPrinter {
  Operation op;
  void (*print)(std::ostream& os, const Case& c, Index marked_row);
};

constexpr InputPrinter kInputPrinters[] = {
    {Operation::softmax_rows, print_logits_inputs},
    {Operation::masked_softmax, print_logits_inputs},
    {Operation::attention, print_qkv_inputs},
    {Operation::attention_tiled, print_qkv_inputs},
    {Operation::multi_head_attention, print_multi_head_inputs},
    {Operation::causal_mask, print_causal_mask_call},
    {Operation::padding_mask, print_padding_mask_call},
    {Operation::batched_attention, print_batched_inputs},
    {Operation::attention_backward, print_backward_inputs},
};
static_assert(detail::one_row_per_operation(kInputPrinters),
              "kInputPrinters: one row per OperationSpec, in the enumerator's order");

}  // namespace

void print_inputs(std::ostream& os, const Case& c, Index marked_row) {
  detail::row_of(kInputPrinters, c.op).print(os, c, marked_row);
}

void showValue(const Case& c, std::ostream& os) {
  os << operation_name(c.op) << " case\n";
  print_inputs(os, c);
  if (!c.params.empty()) {
    DMatrix params(1, Index(c.params.size()));
    for (std::size_t k = 0; k < c.params.size(); ++k) params(0, Index(k)) = c.params[k];
    print_matrix(os, "  the property's knobs (not inputs)", params);
  }
}

}  // namespace attn::prop

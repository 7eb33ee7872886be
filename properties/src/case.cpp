#include "attn/prop/case.hpp"

#include <algorithm>
#include <charconv>
#include <functional>
#include <vector>
#include <iomanip>
#include <sstream>

namespace attn::prop {

const char* operation_name(Operation op) {
  switch (op) {
    case Operation::softmax_rows: return "softmax_rows";
    case Operation::masked_softmax: return "masked_softmax";
    case Operation::attention: return "attention";
    case Operation::attention_tiled: return "attention_tiled";
    case Operation::multi_head_attention: return "multi_head_attention";
    case Operation::causal_mask: return "causal_mask";
    case Operation::padding_mask: return "padding_mask";
  }
  return "unknown";
}

namespace {

/// Shortest text that reads back as the same double ("0.1", "-inf", "nan").
std::string number_text(double x) {
  char buf[40];
  auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

void print_rows(std::ostream& os, const std::string& name, Index rows, Index cols,
                Index marked_row, const std::function<std::string(Index, Index)>& cell) {
  os << name << " (" << rows << "x" << cols << ")";
  if (rows == 0 || cols == 0) {
    os << " = []\n";
    return;
  }
  os << " =\n";
  std::vector<std::string> text(std::size_t(rows * cols));
  std::size_t width = 1;
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < cols; ++j) {
      text[std::size_t(i * cols + j)] = cell(i, j);
      width = std::max(width, text[std::size_t(i * cols + j)].size());
    }
  for (Index i = 0; i < rows; ++i) {
    os << "    [";
    for (Index j = 0; j < cols; ++j)
      os << (j ? "  " : "") << std::setw(int(width)) << text[std::size_t(i * cols + j)];
    os << "]" << (i == marked_row ? "   <- row " + std::to_string(i) : "") << "\n";
  }
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

void print_inputs(std::ostream& os, const Case& c, Index marked_row) {
  if (builds_mask(c.op)) {
    const auto& m = c.mask_shape;
    os << "  " << operation_name(c.op) << "(T_q = " << m.T_q << ", T_v = " << m.T_v;
    if (c.op == Operation::causal_mask)
      os << ", alignment = " << (m.bottom_right ? "bottom_right" : "top_left");
    else
      os << ", key_length = " << m.key_length;
    os << ")\n";
    return;
  }
  if (takes_qkv(c.op)) {
    print_matrix(os, "  Q", c.Q, marked_row);
    print_matrix(os, "  K", c.K);
    print_matrix(os, "  V", c.V);
  } else if (c.op == Operation::multi_head_attention) {
    print_matrix(os, "  X", c.X, marked_row);
    for (std::size_t h = 0; h < c.heads.size(); ++h) {
      const std::string head = "  head " + std::to_string(h) + ": ";
      print_matrix(os, head + "W_Q", c.heads[h].W_Q);
      print_matrix(os, head + "W_K", c.heads[h].W_K);
      print_matrix(os, head + "W_V", c.heads[h].W_V);
    }
    print_matrix(os, "  W_O", c.W_O);
  } else {
    print_matrix(os, "  S", c.S, marked_row);
  }
  if (c.mask)
    print_mask(os, "  mask (x = forbidden)", *c.mask, marked_row);
  else
    os << "  mask = none\n";
  // Not the params: they are a property's knobs, not inputs of the subject,
  // and each property says what they did in its failure's summary (the shifts
  // c_i, sqrt(d_k), the permutation, the mismatch); a bare "params = [0]"
  // explained nothing.
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

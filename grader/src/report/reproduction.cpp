// Counterexamples as code to paste (see reproduction.hpp).
#include "report/reproduction.hpp"
#include "exercises/registry.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <sstream>

namespace attn::grader {
namespace {

using attn::prop::Case;
using attn::prop::DMatrix;
using attn::prop::Operation;

/// The shortest text that reads back as exactly x ("1.0", "-0.5", "1e-300").
std::string number(double x, bool python) {
  if (std::isnan(x)) return python ? "np.nan" : "std::numeric_limits<double>::quiet_NaN()";
  if (std::isinf(x)) {
    const std::string inf = python ? "np.inf" : "std::numeric_limits<double>::infinity()";
    return x < 0 ? "-" + inf : inf;
  }
  char buf[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

std::string py_matrix(const std::string& name, const DMatrix& M) {
  std::ostringstream os;
  os << name << " = np.array([";
  for (Index i = 0; i < M.rows(); ++i) {
    os << (i ? ",\n" + std::string(name.size() + 13, ' ') : "") << "[";
    for (Index j = 0; j < M.cols(); ++j) os << (j ? ", " : "") << number(M(i, j), true);
    os << "]";
  }
  os << "])";
  if (M.rows() == 0 || M.cols() == 0) os << ".reshape(" << M.rows() << ", " << M.cols() << ")";
  return os.str() + "\n";
}

std::string py_mask(const std::string& name, const Mask& M) {
  std::ostringstream os;
  os << name << " = np.array([";
  for (Index i = 0; i < M.rows(); ++i) {
    os << (i ? ", " : "") << "[";
    for (Index j = 0; j < M.cols(); ++j) os << (j ? ", " : "") << (M(i, j) ? "True" : "False");
    os << "]";
  }
  return os.str() + "])  # True = forbidden\n";
}

std::string cpp_matrix(const std::string& ns, const std::string& name, const DMatrix& M) {
  std::ostringstream os;
  os << ns << "::Matrix " << name << "(" << M.rows() << ", " << M.cols() << ");";
  if (M.size() == 0) return os.str() + "\n";
  os << (M.rows() == 1 ? " " : "\n") << name << " << ";
  for (Index i = 0; i < M.rows(); ++i) {
    if (i) os << ",\n" << std::string(name.size() + 4, ' ');
    for (Index j = 0; j < M.cols(); ++j) os << (j ? ", " : "") << number(M(i, j), false);
  }
  return os.str() + ";\n";
}

std::string cpp_mask(const std::string& ns, const std::string& name, const Mask& M) {
  std::ostringstream os;
  os << ns << "::Mask " << name << "(" << M.rows() << ", " << M.cols() << ");";
  if (M.size() == 0) return os.str() + "  // true = forbidden\n";
  os << (M.rows() == 1 ? " " : "\n") << name << " << ";
  for (Index i = 0; i < M.rows(); ++i) {
    if (i) os << ",\n" << std::string(name.size() + 4, ' ');
    for (Index j = 0; j < M.cols(); ++j) os << (j ? ", " : "") << (M(i, j) ? "true" : "false");
  }
  return os.str() + ";  // true = forbidden\n";
}

/// `name` is a Python identifier (ASCII letters, digits, _) and not a keyword.
bool python_identifier(const std::string& name) {
  static const char* const keywords[] = {
      "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
      "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
      "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return",
      "try", "while", "with", "yield"};
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char ch : name)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') ||
        static_cast<unsigned char>(ch) >= 0x80)
      return false;
  for (const char* k : keywords)
    if (name == k) return false;
  return true;
}

/// A Python string literal for `text` (quotes, backslashes and control
/// characters escaped; other bytes as they are).
std::string python_string(const std::string& text) {
  std::string out = "\"";
  for (char ch : text) {
    const auto u = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

/// The line that makes function `fn` of the submission file `file_name` callable.
std::string python_import(const std::string& file_name, const std::string& fn) {
  std::string stem = file_name;
  const bool py = stem.size() > 3 && stem.compare(stem.size() - 3, 3, ".py") == 0;
  if (py) stem.resize(stem.size() - 3);
  if (py && python_identifier(stem)) return "from " + stem + " import " + fn + "\n";
  // "my-attention.py", "2nd attempt.py": not a module name, so by path.
  return "import runpy\n" + fn + " = runpy.run_path(" + python_string(file_name) + ")[\"" + fn +
         "\"]\n";
}

/// "mask = None" or the mask written out (Python).
std::string py_optional_mask(const Case& c) { return c.mask ? py_mask("mask", *c.mask) : "mask = None\n"; }

/// The mask written out (C++), when there is one.
std::string cpp_optional_mask(const Case& c, const std::string& ns) {
  return c.mask ? cpp_mask(ns, "mask", *c.mask) : std::string();
}

/// "mask" or "std::nullopt": the mask argument of a C++ call.
const char* cpp_mask_argument(const Case& c) { return c.mask ? "mask" : "std::nullopt"; }

// --- Python: the lines after the import of function `fn` -----------------

void py_softmax_rows(std::ostream& os, const Case& c, const std::string& fn) {
  os << py_matrix("S", c.S) << "A = " << fn << "(S)\nprint(A, A.sum(axis=1))\n";
}

void py_masked_softmax(std::ostream& os, const Case& c, const std::string& fn) {
  os << py_matrix("S", c.S) << py_optional_mask(c) << "A = " << fn
     << "(S, mask)\nprint(A, A.sum(axis=1))\n";
}

void py_attention(std::ostream& os, const Case& c, const std::string& fn) {
  os << py_matrix("Q", c.Q) << py_matrix("K", c.K) << py_matrix("V", c.V) << py_optional_mask(c)
     << "O, A = " << fn << "(Q, K, V, mask)\nprint(A, A.sum(axis=1))\nprint(O)\n";
}

void py_attention_tiled(std::ostream& os, const Case& c, const std::string& fn) {
  os << py_matrix("Q", c.Q) << py_matrix("K", c.K) << py_matrix("V", c.V) << py_optional_mask(c)
     << "O, logsumexp = " << fn << "(Q, K, V, mask, " << c.tile_q << ", " << c.tile_k
     << ")\nprint(O, logsumexp)\n";
}

void py_multi_head(std::ostream& os, const Case& c, const std::string& fn) {
  os << py_matrix("X", c.X);
  std::string wq, wk, wv;
  for (std::size_t h = 0; h < c.heads.size(); ++h) {
    const std::string k = std::to_string(h + 1);
    os << py_matrix("W_Q" + k, c.heads[h].W_Q) << py_matrix("W_K" + k, c.heads[h].W_K)
       << py_matrix("W_V" + k, c.heads[h].W_V);
    wq += (h ? ", W_Q" : "W_Q") + k;
    wk += (h ? ", W_K" : "W_K") + k;
    wv += (h ? ", W_V" : "W_V") + k;
  }
  os << py_matrix("W_O", c.W_O) << py_optional_mask(c) << "O = " << fn << "(X, [" << wq << "], ["
     << wk << "], [" << wv << "], W_O, mask)\nprint(O)\n";
}

void py_causal_mask(std::ostream& os, const Case& c, const std::string& fn) {
  os << "print(" << fn << "(" << c.mask_shape.T_q << ", " << c.mask_shape.T_v << ", \""
     << (c.mask_shape.bottom_right ? "bottom_right" : "top_left") << "\"))  # True = forbidden\n";
}

void py_padding_mask(std::ostream& os, const Case& c, const std::string& fn) {
  os << "print(" << fn << "(" << c.mask_shape.T_q << ", " << c.mask_shape.T_v << ", "
     << c.mask_shape.key_length << "))  # True = forbidden\n";
}

/// The 4-D tensors as their stacked rows, reshaped (C order, Case::Batched).
void py_batched(std::ostream& os, const Case& c, const std::string& fn) {
  const auto& b = c.batched;
  auto shape = [](const attn::prop::Shape4& s) {
    return std::to_string(s[0]) + ", " + std::to_string(s[1]) + ", " + std::to_string(s[2]) +
           ", " + std::to_string(s[3]);
  };
  os << py_matrix("Q", c.Q) << "Q = Q.reshape(" << shape(b.Q) << ")\n" << py_matrix("K", c.K)
     << "K = K.reshape(" << shape(b.K) << ")\n" << py_matrix("V", c.V) << "V = V.reshape("
     << shape(b.V) << ")\n";
  if (c.mask && !b.mask_dims.empty()) {
    std::string dims;
    for (std::size_t k = 0; k < b.mask_dims.size(); ++k)
      dims += (k ? ", " : "") + std::to_string(b.mask_dims[k]);
    os << py_mask("mask", *c.mask) << "mask = mask.reshape(" << dims << ")\n";
  } else {
    os << "mask = None\n";
  }
  os << "O = " << fn << "(Q, K, V, mask=mask, scale="
     << (b.scale ? number(*b.scale, true) : std::string("None"))
     << ", causal=" << (b.causal ? "True" : "False") << ", alignment=\""
     << (b.bottom_right ? "bottom_right" : "top_left") << "\")\nprint(O)\n";
}

void py_backward(std::ostream& os, const Case& c, const std::string& fn) {
  os << py_matrix("Q", c.Q) << py_matrix("K", c.K) << py_matrix("V", c.V) << py_matrix("dO", c.dO)
     << py_optional_mask(c) << "dQ, dK, dV = " << fn
     << "(Q, K, V, dO, mask=mask)\nprint(dQ, dK, dV, sep=\"\\n\")\n";
}

// --- C++: main's body, in namespace `ns` ---------------------------------

void cpp_softmax_rows(std::ostream& body, const Case& c, const std::string& ns) {
  body << cpp_matrix(ns, "S", c.S) << ns << "::Matrix A = " << ns
       << "::softmax_rows(S);\nstd::cout << A << \"\\n\\nrow sums:\\n\" << A.rowwise().sum() << \"\\n\";\n";
}

void cpp_masked_softmax(std::ostream& body, const Case& c, const std::string& ns) {
  body << cpp_matrix(ns, "S", c.S)
       << (c.mask ? cpp_mask(ns, "mask", *c.mask) : ns + "::Mask mask(S.rows(), S.cols());\nmask.setConstant(false);\n")
       << ns << "::Matrix A = " << ns
       << "::masked_softmax(S, mask);\nstd::cout << A << \"\\n\\nrow sums:\\n\" << A.rowwise().sum() << \"\\n\";\n";
}

void cpp_attention(std::ostream& body, const Case& c, const std::string& ns) {
  body << cpp_matrix(ns, "Q", c.Q) << cpp_matrix(ns, "K", c.K) << cpp_matrix(ns, "V", c.V)
       << cpp_optional_mask(c, ns) << "auto r = " << ns << "::attention(Q, K, V, " << cpp_mask_argument(c)
       << ");\nstd::cout << r.A << \"\\n\\nrow sums:\\n\" << r.A.rowwise().sum() << \"\\n\\nO:\\n\" << r.O << \"\\n\";\n";
}

void cpp_attention_tiled(std::ostream& body, const Case& c, const std::string& ns) {
  body << cpp_matrix(ns, "Q", c.Q) << cpp_matrix(ns, "K", c.K) << cpp_matrix(ns, "V", c.V)
       << cpp_optional_mask(c, ns) << "auto r = " << ns << "::attention_tiled(Q, K, V, "
       << cpp_mask_argument(c) << ", " << c.tile_q << ", " << c.tile_k
       << ");\nstd::cout << \"O:\\n\" << r.O << \"\\n\\nlogsumexp:\\n\" << r.logsumexp << \"\\n\";\n";
}

void cpp_multi_head(std::ostream& body, const Case& c, const std::string& ns) {
  body << cpp_matrix(ns, "X", c.X) << "std::vector<" << ns << "::HeadWeights> heads;\n";
  for (std::size_t h = 0; h < c.heads.size(); ++h) {
    const std::string i = std::to_string(h);
    body << "{\n" << cpp_matrix(ns, "W_Q" + i, c.heads[h].W_Q) << cpp_matrix(ns, "W_K" + i, c.heads[h].W_K)
         << cpp_matrix(ns, "W_V" + i, c.heads[h].W_V) << "heads.push_back({W_Q" << i << ", W_K" << i
         << ", W_V" << i << "});\n}\n";
  }
  body << cpp_matrix(ns, "W_O", c.W_O) << cpp_optional_mask(c, ns) << ns << "::Matrix O = " << ns
       << "::multi_head_attention(X, heads, W_O, " << cpp_mask_argument(c)
       << ");\nstd::cout << O << \"\\n\";\n";
}

void cpp_causal_mask(std::ostream& body, const Case& c, const std::string& ns) {
  body << "std::cout << " << ns << "::causal_mask(" << c.mask_shape.T_q << ", " << c.mask_shape.T_v
       << ", " << ns << "::Alignment::" << (c.mask_shape.bottom_right ? "bottom_right" : "top_left")
       << ") << \"\\n\";  // 1 = forbidden\n";
}

void cpp_padding_mask(std::ostream& body, const Case& c, const std::string& ns) {
  body << "std::cout << " << ns << "::padding_mask(" << c.mask_shape.T_q << ", " << c.mask_shape.T_v
       << ", " << c.mask_shape.key_length << ") << \"\\n\";  // 1 = forbidden\n";
}

void cpp_no_interface(std::ostream& body, const Case& c, const std::string&) {
  body << "// " << attn::prop::operation_name(c.op)
       << " has no C++ interface: see the Python reproduction\n";
}

/// B1's call passes NaN for the default scale (the row's needs_limits).
void cpp_backward(std::ostream& body, const Case& c, const std::string& ns) {
  body << cpp_matrix(ns, "Q", c.Q) << cpp_matrix(ns, "K", c.K) << cpp_matrix(ns, "V", c.V)
       << cpp_matrix(ns, "dO", c.dO) << cpp_optional_mask(c, ns) << "auto g = " << ns
       << "::attention_backward(Q, K, V, dO, " << cpp_mask_argument(c)
       << ", std::numeric_limits<double>::quiet_NaN(), false);  // NaN: scale 1/sqrt(d_k)\n"
          "std::cout << \"dQ:\\n\" << g.dQ << \"\\n\\ndK:\\n\" << g.dK << \"\\n\\ndV:\\n\" << g.dV << \"\\n\";\n";
}

/// One operation's reproduction template.
struct ReproductionRow {
  Operation op;
  /// Python: the lines after `from FILE import fn` (fn: the operation's name,
  /// or the hello's entry when entry_from_hello).
  void (*python)(std::ostream& os, const Case& c, const std::string& fn);
  /// C++: main's body calling the exercise's namespace `ns`.
  void (*cpp)(std::ostream& body, const Case& c, const std::string& ns);
  /// The Python function is the hello's entry (attention: F3's
  /// scaled_dot_product_attention, or a kernel's own name).
  bool entry_from_hello;
  /// The C++ call spells a number from <limits> (NaN) whatever the inputs.
  bool needs_limits;
};

// One row per enumerator, in the enumerator's order (checked below).
constexpr ReproductionRow kReproductions[] = {
    {Operation::softmax_rows, py_softmax_rows, cpp_softmax_rows, false, false},
    {Operation::masked_softmax, py_masked_softmax, cpp_masked_softmax, false, false},
    {Operation::attention, py_attention, cpp_attention, true, false},
    {Operation::attention_tiled, py_attention_tiled, cpp_attention_tiled, false, false},
    {Operation::multi_head_attention, py_multi_head, cpp_multi_head, false, false},
    {Operation::causal_mask, py_causal_mask, cpp_causal_mask, false, false},
    {Operation::padding_mask, py_padding_mask, cpp_padding_mask, false, false},
    {Operation::batched_attention, py_batched, cpp_no_interface, false, false},
    {Operation::attention_backward, py_backward, cpp_backward, false, true},
};

constexpr bool reproductions_in_enumerator_order() {
  for (std::size_t i = 0; i < std::size(kReproductions); ++i)
    if (static_cast<std::size_t>(kReproductions[i].op) != i) return false;
  return std::size(kReproductions) == attn::prop::operation_specs().size();
}
static_assert(reproductions_in_enumerator_order(),
              "kReproductions: one row per Operation, in the enumerator's order (as kOperationSpecs)");

const ReproductionRow& reproduction_row(Operation op) {
  return kReproductions[static_cast<std::size_t>(op)];
}

}  // namespace

std::string python_reproduction(const Case& c, const std::string& file_name,
                                const std::string& attention_entry) {
  std::ostringstream os;
  os << "import numpy as np\n";
  const std::string file = file_name.empty() ? "attention.py" : file_name;
  const ReproductionRow& row = reproduction_row(c.op);
  std::string fn = attn::prop::operation_name(c.op);
  if (row.entry_from_hello)
    fn = python_identifier(attention_entry) ? attention_entry
                                            : std::string("scaled_dot_product_attention");
  os << python_import(file, fn);
  row.python(os, c, fn);
  return os.str();
}

std::string cpp_reproduction(const Case& c, const std::string& exercise) {
  // The exercise's interface header and namespace (exercises/registry.json).
  const ExerciseSpec* spec = find_exercise_spec(exercise);
  const bool has_cpp = spec && !spec->cpp.header.empty();
  std::string ns = has_cpp ? spec->cpp.ns : exercise;
  for (char& ch : ns) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const ReproductionRow& row = reproduction_row(c.op);
  std::ostringstream os;
  const bool finite = c.Q.allFinite() && c.K.allFinite() && c.V.allFinite() && c.S.allFinite() &&
                      c.dO.allFinite() && !row.needs_limits;
  os << (finite ? "#include <iostream>\n" : "#include <iostream>\n#include <limits>\n") << "#include \""
     << (has_cpp ? spec->cpp.header : "attention.hpp") << "\"\nint main() {\n";
  std::ostringstream body;
  row.cpp(body, c, ns);
  std::istringstream lines(body.str());
  std::string line;
  while (std::getline(lines, line)) os << "  " << line << "\n";
  os << "}\n";
  return os.str();
}

}  // namespace attn::grader

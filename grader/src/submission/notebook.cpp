// Jupyter notebooks to Python (see notebook.hpp).
#include "submission/notebook.hpp"

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>
#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>

#include "submission/submission.hpp"
#include "exercises/listed.hpp"

namespace attn::grader {
namespace {

using nlohmann::json;

/// One cell as the stream has shown it so far.
struct Cell {
  std::string type;
  std::string source;
  bool type_is_text = true;
  bool source_is_text = true;
};

/// nlohmann::json's SAX interface over a notebook: keeps the cells'
/// "cell_type" and "source" (top-level "cells" list only), skips the rest
/// (outputs, metadata) without holding it. Each finished cell goes to `done`.
class CellReader : public nlohmann::json_sax<json> {
 public:
  using Done = void (*)(const Cell&, int, void*);
  CellReader(Done done, void* context) : done_(done), context_(context) {}

  std::string error;     ///< set when parsing stopped on a problem
  bool has_cells = false;

  bool null() override { return scalar(false); }
  bool boolean(bool) override { return scalar(false); }
  bool number_integer(number_integer_t) override { return scalar(false); }
  bool number_unsigned(number_unsigned_t) override { return scalar(false); }
  bool number_float(number_float_t, const string_t&) override { return scalar(false); }
  bool binary(binary_t&) override { return scalar(false); }
  bool string(string_t& s) override {
    if (depth_ == 3 && key_ == "cell_type") cell_.type = s;
    if (depth_ == 3 && key_ == "source") cell_.source = s;
    if (depth_ == 4 && in_source_) cell_.source += s;
    return scalar(true);
  }
  bool start_object(std::size_t) override {
    if (depth_ == 0) root_object_ = true;
    if (depth_ == 2 && in_cells_) {
      ++index_;
      cell_ = Cell{};
    }
    mark_not_text();
    ++depth_;
    return true;
  }
  bool end_object() override {
    --depth_;
    if (depth_ == 2 && in_cells_) done_(cell_, index_, context_);
    return true;
  }
  bool start_array(std::size_t) override {
    if (depth_ == 0) root_object_ = false;
    if (depth_ == 1 && key_ == "cells") in_cells_ = has_cells = true;
    else if (depth_ == 2 && in_cells_) return stop("cell " + std::to_string(++index_) + " is not a JSON object");
    else if (depth_ == 3 && key_ == "source") in_source_ = true;
    else mark_not_text();
    ++depth_;
    return true;
  }
  bool end_array() override {
    --depth_;
    if (depth_ == 1) in_cells_ = false;
    if (depth_ == 3) in_source_ = false;
    return true;
  }
  bool key(string_t& k) override {
    if (depth_ <= 3) key_ = k;
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    std::string what = e.what();
    if (const auto at = what.find("] "); at != std::string::npos) what = what.substr(at + 2);
    return stop("not JSON at byte " + std::to_string(position) + ": " + what);
  }
  bool root_object() const { return root_object_; }

 private:
  /// A value that is not a string where text is expected marks the cell.
  void mark_not_text() {
    if (depth_ == 3 && key_ == "cell_type") cell_.type_is_text = false;
    if (depth_ == 3 && key_ == "source") cell_.source_is_text = false;
    if (depth_ == 4 && in_source_) cell_.source_is_text = false;
  }
  bool scalar(bool text) {
    if (depth_ == 0) root_object_ = false;
    if (depth_ == 2 && in_cells_) return stop("cell " + std::to_string(++index_) + " is not a JSON object");
    if (!text) mark_not_text();
    return true;
  }
  bool stop(std::string why) {
    error = std::move(why);
    return false;
  }

  Done done_;
  void* context_;
  int depth_ = 0;
  int index_ = 0;
  bool root_object_ = false, in_cells_ = false, in_source_ = false;
  std::string key_;
  Cell cell_;
};

std::string plural(int n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

/// Where a line stands in Python's tokens: inside a triple-quoted string,
/// inside brackets, or continued by a backslash; only a line that starts a
/// statement is IPython syntax (IPython tokenizes the same way).
struct LineState {
  char triple = 0;  ///< the quote of an open ''' or """
  int brackets = 0;
  bool continued = false;
  bool starts_statement() const { return triple == 0 && brackets <= 0 && !continued; }
  /// Moves past `line`.
  void advance(const std::string& line) {
    continued = false;
    char quote = 0;  // an open one-line string
    for (std::size_t k = 0; k < line.size(); ++k) {
      const char c = line[k];
      if (triple) {
        if (c == '\\') ++k;
        else if (line.compare(k, 3, std::string(3, triple)) == 0) triple = 0, k += 2;
      } else if (quote) {
        if (c == '\\') ++k;
        else if (c == quote) quote = 0;
      } else if (c == '#') {
        return;
      } else if ((c == '"' || c == '\'') && line.compare(k, 3, std::string(3, c)) == 0) {
        triple = c;
        k += 2;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '(' || c == '[' || c == '{') {
        ++brackets;
      } else if (c == ')' || c == ']' || c == '}') {
        --brackets;
      } else if (c == '\\' && k + 1 == line.size()) {
        continued = true;
      }
    }
  }
};

/// The Python of one line that starts a statement; counts what it skips.
std::string python_line(const std::string& line, NotebookPython& nb) {
  const std::size_t first = line.find_first_not_of(" \t");
  if (first == std::string::npos) return line;
  const std::string indent = line.substr(0, first), body = line.substr(first);
  const auto skipped = [&](int& count) {
    ++count;
    return indent + "pass  # (IPython, skipped) " + body;
  };
  static const std::regex assigned_magic(R"(^[A-Za-z_][\w.]*(\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*[!%])");
  static const std::regex ipython_call(R"(^get_ipython\s*\()");
  static const std::regex from_ipython(R"(^from\s+IPython(\.\w+)*\s+import\s+([\w\s,]+?)\s*(#.*)?$)");
  static const std::regex import_ipython(R"(^(import|from)\s+IPython\b)");
  static const std::regex alias(R"(\s*(\w+)(\s+as\s+(\w+))?\s*)");
  static const std::regex time_magic(R"(^%time\s+(\S.*)$)");
  if (body[0] == '!') return skipped(nb.shell_lines);
  if (std::smatch m; std::regex_match(body, m, time_magic)) {  // IPython runs the statement
    ++nb.timed;
    return indent + m[1].str() + "  # (IPython %time, run untimed)";
  }
  if (body[0] == '%') return skipped(nb.line_magics);
  if (std::regex_search(body, assigned_magic))
    return skipped(body.find('!') < body.find('%') ? nb.shell_lines : nb.line_magics);
  if (std::regex_search(body, ipython_call)) return skipped(nb.ipython_calls);
  if (std::smatch m; std::regex_match(body, m, from_ipython)) {
    ++nb.ipython_imports;
    std::string names, list = m[2].str();
    std::stringstream parts(list);
    for (std::string part; std::getline(parts, part, ',');) {
      std::smatch a;
      if (!std::regex_match(part, a, alias)) return indent + "pass  # (IPython, skipped) " + body;
      names += (a[3].matched ? a[3].str() : a[1].str()) + " = ";
    }
    return indent + names + "_attnlab_no_op  # (IPython, skipped) " + body;
  }
  if (std::regex_search(body, import_ipython)) return skipped(nb.ipython_imports);
  return line;
}

/// The display and plotting modules of a statement line that imports
/// (`import a.b as c, d`, `from a.b import x`), by their top-level names,
/// among display_modules().
std::vector<std::string> display_imports(const std::string& line) {
  static const std::regex import_line(R"(^\s*import\s+([^#;]+))");
  static const std::regex from_line(R"(^\s*from\s+([A-Za-z_][\w.]*)\s+import\b)");
  static const std::regex name(R"(^\s*([A-Za-z_]\w*))");
  std::vector<std::string> roots, found;
  std::smatch m;
  if (std::regex_search(line, m, from_line)) {
    roots.push_back(m[1].str().substr(0, m[1].str().find('.')));
  } else if (std::regex_search(line, m, import_line)) {
    std::stringstream parts(m[1].str());
    for (std::string part; std::getline(parts, part, ',');)
      if (std::smatch n; std::regex_search(part, n, name)) roots.push_back(n[1]);
  }
  for (const auto& r : roots)
    for (const char* d : display_modules())
      if (r == d && std::find(found.begin(), found.end(), r) == found.end()) found.push_back(r);
  return found;
}

/// The names a statement line that imports display modules binds: `import
/// a.b as c` c, `import a.b` a, `from a import x as y, z` y and z (a
/// star import binds nothing known).
std::vector<std::string> display_import_names(const std::string& line) {
  static const std::regex import_line(R"(^\s*import\s+([^#;]+))");
  static const std::regex from_line(R"(^\s*from\s+[A-Za-z_][\w.]*\s+import\s+\(?([^#;()]+))");
  static const std::regex dotted_as(R"(^\s*([A-Za-z_]\w*)[\w.]*(\s+as\s+([A-Za-z_]\w*))?\s*$)");
  std::vector<std::string> names;
  std::smatch m;
  const bool from = std::regex_search(line, m, from_line);
  if (!from && !std::regex_search(line, m, import_line)) return names;
  std::stringstream parts(m[1].str());
  for (std::string part; std::getline(parts, part, ',');)
    if (std::smatch a; std::regex_match(part, a, dotted_as))
      names.push_back(a[3].matched ? a[3].str() : a[1].str());
  return names;
}

/// Appends the lines of a cell that imports display modules `modules`
/// (binding `binds`), or uses `uses`, names an earlier such import binds:
/// inside a try whose except skips the rest of the cell when one of
/// display_modules() is missing, or when a name of `uses` is undefined
/// because its import was skipped (the preamble's
/// _attnlab_display_missing), and raises anything else. Only lines that
/// start a statement are indented, so strings and bracketed lines keep
/// their text.
void add_guarded_cell(const std::vector<std::string>& lines, int n,
                      const std::vector<std::string>& modules, const std::vector<std::string>& binds,
                      const std::vector<std::string>& uses, NotebookPython& nb) {
  auto join = [](const std::vector<std::string>& v) {
    std::string list;
    for (const auto& m : v) list += (list.empty() ? "" : ", ") + m;
    return list;
  };
  std::string& out = nb.python;
  out += std::string(kGuardOpen) + std::to_string(n) +
         (modules.empty() ? " uses " + join(uses) + ", bound by a display import"
                          : " imports " + join(modules)) +
         ": skipped if a display module is missing\n    pass\n";
  LineState state;
  for (const auto& line : lines) {
    out += (state.starts_statement() ? "    " + python_line(line, nb) : line) + "\n";
    state.advance(line);
  }
  std::string tuple = "(";
  for (const auto& b : binds) tuple += "'" + b + "', ";
  out += std::string(kGuardClose) + "\n    if not _attnlab_display_missing(_attnlab_missing, " +
         std::to_string(n) + ", " + tuple + ")): raise\n";
  if (!modules.empty()) nb.guarded_cells.push_back("cell " + std::to_string(n) + " (" + join(modules) + ")");
  else nb.name_guarded_cells.push_back("cell " + std::to_string(n) + " (" + join(uses) + ")");
}

/// A cell whose display imports all stand alone at its top level (one line
/// each, not indented, not continued): each such import runs in a `try` of
/// its own, skipped alone where its module is missing (the preamble's
/// _attnlab_display_missing), and the rest of the cell runs; a statement of
/// the cell using a name such an import binds runs guarded as a later
/// cell's does (add_guarded_cell). Returns false (nothing appended) when an
/// import does not stand alone: the cell is then guarded whole.
bool display_imports_alone(const std::vector<std::string>& lines, int n, NotebookPython& nb) {
  std::vector<std::string> out, binds, imports, modules;
  LineState state;
  for (const auto& line : lines) {
    const bool statement = state.starts_statement();
    state.advance(line);
    const std::vector<std::string> found = statement ? display_imports(line) : std::vector<std::string>{};
    if (found.empty()) {
      out.push_back(line);
      continue;
    }
    const std::size_t last = line.find_last_not_of(" \t\r");
    if (line.find_first_of(" \t") == 0 || line.find_first_of("(;") != std::string::npos ||
        (last != std::string::npos && line[last] == '\\'))
      return false;
    std::string tuple = "(";
    for (const auto& b : display_import_names(line)) {
      tuple += "'" + b + "', ";
      if (std::find(binds.begin(), binds.end(), b) == binds.end()) binds.push_back(b);
    }
    for (const auto& m : found)
      if (std::find(modules.begin(), modules.end(), m) == modules.end()) modules.push_back(m);
    std::string shown = line.substr(0, last == std::string::npos ? 0 : last + 1);
    imports.push_back(shown);
    std::string quoted;  // the statement as a Python string, for stderr
    for (char c : shown) quoted += c == '\\' || c == '\'' ? std::string("\\") + c : std::string(1, c);
    out.push_back("try:  # attnlab: a display import, skipped alone where its module is missing");
    out.push_back("    " + shown);
    out.push_back("except ModuleNotFoundError as _attnlab_missing:");
    out.push_back("    if not _attnlab_display_missing(_attnlab_missing, " + std::to_string(n) + ", " +
                  tuple + "), '" + quoted + "'): raise");
  }
  for (const auto& b : binds)
    if (std::find(nb.display_names.begin(), nb.display_names.end(), b) == nb.display_names.end())
      nb.display_names.push_back(b);
  std::string list;
  for (const auto& m : modules) list += (list.empty() ? "" : ", ") + m;
  nb.guarded_imports.push_back("cell " + std::to_string(n) + " (" + list + ")");
  // The names the cell's other statements use of those its display imports
  // (or earlier ones) bind: those statements run guarded.
  std::vector<std::string> uses;
  for (const auto& name : nb.display_names) {
    const std::regex word("(^|[^\\w.])" + name + "\\b");
    for (const auto& line : lines)
      if (display_imports(line).empty() && std::regex_search(line, word)) {
        uses.push_back(name);
        break;
      }
  }
  if (!uses.empty()) {
    add_guarded_cell(out, n, {}, binds, uses, nb);
    return true;
  }
  LineState again;
  for (const auto& line : out) {
    nb.python += (again.starts_statement() ? python_line(line, nb) : line) + "\n";
    again.advance(line);
  }
  return true;
}

/// Appends the Python of code cell `n` to nb.python.
void add_code_cell(const std::string& source, int n, NotebookPython& nb) {
  std::vector<std::string> lines;
  std::istringstream in(source);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::string& out = nb.python;
  out += "# --- cell " + std::to_string(n) + "\n";
  std::size_t first = 0;
  while (first < lines.size() && lines[first].find_first_not_of(" \t\r") == std::string::npos) ++first;
  // %%time, %%timeit and %%capture run their body as Python (IPython's
  // execution magics): it is run once, untimed, its output not captured.
  static const std::regex python_cell(R"(^%%(time|timeit|capture)\b[^\n]*?(\s([A-Za-z_]\w*))?\s*)");
  if (std::smatch m; first < lines.size() && std::regex_match(lines[first], m, python_cell)) {
    ++nb.timed;  // `%%capture NAME` binds NAME (to an object whose methods do nothing)
    const std::string bind = m[1] == "capture" && m[3].matched ? m[3].str() + " = get_ipython()  " : "";
    lines[first] = bind + "# (IPython cell magic, run as Python) " + lines[first];
  } else if (first < lines.size() && lines[first].rfind("%%", 0) == 0) {
    ++nb.cell_magics;
    for (const auto& line : lines) out += "# (IPython cell magic, skipped) " + line + "\n";
    return;
  }
  std::vector<std::string> modules;
  LineState probe;
  for (const auto& line : lines) {
    if (probe.starts_statement())
      for (const auto& m : display_imports(line))
        if (std::find(modules.begin(), modules.end(), m) == modules.end()) modules.push_back(m);
    probe.advance(line);
  }
  // The names an earlier display import binds that this cell uses (a word
  // of its text; the guard skips only on such a name undefined).
  std::vector<std::string> uses;
  for (const auto& name : nb.display_names) {
    const std::regex word("(^|[^\\w.])" + name + "\\b");
    for (const auto& line : lines)
      if (std::regex_search(line, word)) {
        uses.push_back(name);
        break;
      }
  }
  if (!modules.empty() && display_imports_alone(lines, n, nb)) return;
  if (!modules.empty() || !uses.empty()) {
    std::vector<std::string> binds;
    LineState again;
    for (const auto& line : lines) {
      if (again.starts_statement() && !display_imports(line).empty())
        for (auto& b : display_import_names(line))
          if (std::find(binds.begin(), binds.end(), b) == binds.end()) binds.push_back(b);
      again.advance(line);
    }
    for (const auto& b : binds)
      if (std::find(nb.display_names.begin(), nb.display_names.end(), b) == nb.display_names.end())
        nb.display_names.push_back(b);
    return add_guarded_cell(lines, n, modules, binds, uses, nb);
  }
  LineState state;
  for (const auto& line : lines) {
    out += (state.starts_statement() ? python_line(line, nb) : line) + "\n";
    state.advance(line);
  }
}

/// What every converted notebook starts with: Jupyter's display() and
/// get_ipython() as Python without IPython has them (they do nothing).
constexpr const char* kPreamble =
    "def display(*objects, **options): pass  # attnlab: Jupyter's display() shows nothing here\n"
    "def _attnlab_no_op(*args, **kwargs): pass\n"
    "class _AttnlabNoIPython:\n"
    "    def __getattr__(self, name): return _attnlab_no_op\n"
    "def get_ipython(): return _AttnlabNoIPython()\n"
    "_attnlab_unbound = set()\n"
    "def _attnlab_display_missing(error, cell, binds, statement=None):\n"
    "    # attnlab: a cell that fails only on importing a display module is skipped,\n"
    "    # and so is a later one that fails only on a name such a skipped import binds\n"
    "    import sys\n"
    "    if isinstance(error, NameError):\n"
    "        import re\n"
    "        found = re.search(r\"name '(\\w+)' is not defined\", str(error))\n"
    "        name = getattr(error, 'name', None) or (found.group(1) if found else None)\n"
    "        if name not in _attnlab_unbound: return False\n"
    "        print('attnlab: skipped the rest of notebook cell %d: %s (bound by a display import '\n"
    "              'skipped here)' % (cell, error), file=sys.stderr)\n"
    "        return True\n"
    "    if (error.name or '').split('.')[0] not in _ATTNLAB_DISPLAY_MODULES: return False\n"
    "    _attnlab_unbound.update(b for b in binds if b not in globals())\n"
    "    if statement is not None:\n"
    "        print('attnlab: skipped `%s` in notebook cell %d: %s (a display module, not installed '\n"
    "              'here); the rest of the cell runs' % (statement, cell, error), file=sys.stderr)\n"
    "        return True\n"
    "    print('attnlab: skipped notebook cell %d: %s (a display module, not installed here)'\n"
    "          % (cell, error), file=sys.stderr)\n"
    "    return True\n";

/// The preamble's set of display_modules(), as Python.
std::string display_module_set() {
  std::string set = "_ATTNLAB_DISPLAY_MODULES = {";
  for (const char* m : display_modules()) set += std::string("'") + m + "', ";
  return set + "}\n";
}

}  // namespace

const std::vector<const char*>& display_modules() {
  static const std::vector<const char*> m = {"IPython", "altair",   "bokeh",        "ipywidgets",
                                             "matplotlib", "mpl_toolkits", "plotly", "pylab",
                                             "seaborn", "tqdm"};
  return m;
}

std::string unguarded_cells(const std::string& python) {
  if (python.find(kGuardOpen) == std::string::npos) return python;
  std::string out;
  std::istringstream in(python);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(kGuardOpen, 0) == 0) inside = true;
    else if (line.rfind(kGuardClose, 0) == 0) inside = false;
    else if (inside && line.rfind("    ", 0) == 0) line.erase(0, 4);
    out += line + "\n";
  }
  return out;
}

std::string NotebookPython::note() const {
  std::vector<std::string> parts;
  if (cell_magics) parts.push_back(plural(cell_magics, "cell magic", "cell magics"));
  if (line_magics) parts.push_back(plural(line_magics, "line magic", "line magics"));
  if (shell_lines) parts.push_back(plural(shell_lines, "shell line", "shell lines"));
  if (ipython_calls) parts.push_back(plural(ipython_calls, "get_ipython() call", "get_ipython() calls"));
  if (ipython_imports) parts.push_back(plural(ipython_imports, "IPython import", "IPython imports"));
  const std::string ran = timed ? "ran the Python of " + plural(timed, "%time/%%time/%%timeit/%%capture magic",
                                                                "%time/%%time/%%timeit/%%capture magics") +
                                       " once, untimed"
                                 : "";
  std::string text = ran;
  if (!parts.empty()) {
    text += text.empty() ? "skipped " : "; skipped ";
    for (std::size_t k = 0; k < parts.size(); ++k) text += (k ? ", " : "") + parts[k];
    text += " of the notebook (IPython syntax, not Python; display() shows nothing)";
  }
  if (!guarded_imports.empty()) {
    const std::string cells = listed(guarded_imports);
    text += (text.empty() ? "" : "; ") + cells +
            (guarded_imports.size() == 1 ? " imports" : " import") +
            " a display or plotting module: where it is not installed, only that import "
            "statement is skipped (its stderr says so) and the rest of the cell runs";
  }
  if (!guarded_cells.empty()) {
    const std::string cells = listed(guarded_cells);
    text += (text.empty() ? "" : "; ") + cells +
            (guarded_cells.size() == 1 ? " imports" : " import") +
            " a display or plotting module: where it is not installed, that cell is skipped "
            "(its stderr says so), not an error";
  }
  if (!name_guarded_cells.empty()) {
    const std::string cells = listed(name_guarded_cells);
    text += (text.empty() ? "" : "; ") + cells +
            (name_guarded_cells.size() == 1 ? " uses a name" : " use names") +
            " such an import binds: where the import was skipped, the rest of that cell is "
            "skipped too (its stderr says so), not an error; a cell failing otherwise is an error";
  }
  return text;
}

bool is_notebook(const std::filesystem::path& file) {
  return lower_extension(file) == ".ipynb";
}

NotebookPython read_notebook(const std::filesystem::path& notebook) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(notebook, ec))
    throw NotebookError("it is not a regular file");
  const std::uintmax_t size = std::filesystem::file_size(notebook, ec);
  if (ec) throw NotebookError("it cannot be read: " + ec.message());
  if (size > kMaxNotebookBytes)
    throw NotebookError("it is " + std::to_string(size) + " bytes, more than the " +
                        std::to_string(kMaxNotebookBytes >> 20) +
                        " MiB a notebook may have (clear its outputs: Jupyter's "
                        "Edit > Clear Outputs of All Cells, then save)");
  std::ifstream in(notebook, std::ios::binary);
  if (!in) throw NotebookError("it cannot be read");
  struct Context {
    NotebookPython nb;
    std::string error;
  } context;
  context.nb.python = kPreamble + display_module_set();
  CellReader reader(
      [](const Cell& cell, int n, void* c) {
        auto& ctx = *static_cast<Context*>(c);
        if (!cell.type_is_text && ctx.error.empty()) ctx.error = "cell " + std::to_string(n) + "'s cell_type is not text";
        if (cell.type != "code" || !ctx.error.empty()) return;
        if (!cell.source_is_text)
          ctx.error = "cell " + std::to_string(n) + "'s source is not text (a string or a list of strings)";
        else
          add_code_cell(cell.source, n, ctx.nb);
      },
      &context);
  json::sax_parse(in, &reader);
  if (!reader.error.empty()) throw NotebookError(reader.error);
  if (!reader.root_object()) throw NotebookError("it is JSON but not an object with a \"cells\" list");
  if (!reader.has_cells) throw NotebookError("it has no \"cells\" list (nbformat 4)");
  if (!context.error.empty()) throw NotebookError(context.error);
  return std::move(context.nb);
}

std::string notebook_to_python(const std::filesystem::path& notebook) {
  return read_notebook(notebook).python;
}

}  // namespace attn::grader

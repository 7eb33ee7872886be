#pragma once
// Jupyter notebooks (.ipynb) as Python submissions: the code cells, in
// order, become one Python file that runs as Jupyter would run them, minus
// the display. No Jupyter is needed: a notebook is JSON (nbformat 4:
// "cells", each with "cell_type" and "source", a string or a list of
// strings), read as a stream (nlohmann::json's SAX parser), so only the
// code cells' text is held, never the outputs.
//
// IPython's own syntax, which plain Python cannot run (IPython's input
// transformers, https://ipython.readthedocs.io/en/stable/config/inputtransforms.html):
// - `%%time`, `%%timeit` and `%%capture` cells and `%time STATEMENT` lines
//   run their Python once (IPython's execution magics, untimed, nothing
//   captured), so a function defined under them is defined;
// - any other cell magic (a cell whose first line starts with `%%`, e.g.
//   `%%bash`) is skipped whole: every line kept as a comment;
// - a line magic (`%matplotlib inline`), a shell line (`!pip install numpy`,
//   indented too) and a statement that is a `get_ipython()` call become
//   `pass` at the same indentation with the line as a comment, so a block
//   keeps a body and line numbers still count the same lines;
// - `from IPython... import a, b` binds a and b to a function that does
//   nothing; `import IPython...` becomes `pass`;
// - `display()` is defined to do nothing and `get_ipython()` answers every
//   method with nothing (one definition each, before the first cell).
// Each kind skipped is counted for the report's note.
//
// A display or plotting module's import (display_modules(): IPython,
// altair, bokeh, ipywidgets, matplotlib, mpl_toolkits, plotly, pylab,
// seaborn, tqdm; `import matplotlib.pyplot as plt`, `from tqdm import
// tqdm`) standing alone on a line at a cell's top level runs in a `try` of
// its own: where it fails with ModuleNotFoundError for one of these modules
// (the grading machine has no matplotlib), only that statement is skipped,
// a line on stderr says so, and the rest of the cell runs (its statements
// using the name it binds guarded as a later cell's are, below). A cell
// whose display import is indented, bracketed or continued runs inside a
// `try` whole: on such a failure the rest of the cell is skipped and a
// line on stderr says so; any other
// error, a missing numpy included, is raised as from any cell. A later
// cell that uses a name such an import binds (`plt`, `sns`, as imported; a
// word of its text) runs guarded too: if it fails with NameError for a name
// that a skipped import left unbound, the rest of it is skipped and stderr
// says so; a NameError for any other name, or any other error, is raised.
// The report's note names such cells. Its statement lines are indented by four
// spaces (strings and bracketed lines keep their text); unguarded_cells
// gives the text back for recognising the exercise (recognise.hpp).

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace attn::grader {

/// The largest notebook read (16 MiB; outputs with images make notebooks
/// large, the code cells rarely pass 100 KiB).
inline constexpr std::uintmax_t kMaxNotebookBytes = std::uintmax_t{16} << 20;

/// Why a notebook cannot be graded, in words the student can act on: "not
/// JSON at byte 120: ...", "it has no \"cells\" list", "cell 3's source is
/// not text", "it is 41943040 bytes, more than the 16 MiB ...".
class NotebookError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A notebook's code cells as Python, and what was skipped.
struct NotebookPython {
  std::string python;
  int timed = 0;            ///< `%%time`, `%%timeit`, `%%capture` cells and `%time` lines, run as Python
  int cell_magics = 0;      ///< `%%` cells, skipped whole
  int line_magics = 0;      ///< `%...` lines
  int shell_lines = 0;      ///< `!...` lines
  int ipython_calls = 0;    ///< statements calling get_ipython()
  int ipython_imports = 0;  ///< `from IPython... import` and `import IPython` lines
  /// Cells run guarded because they import display modules: "cell 4 (matplotlib)".
  std::vector<std::string> guarded_cells;
  /// Cells whose display imports each run guarded alone, the rest of the cell
  /// run: "cell 1 (matplotlib)" (an import standing alone at the cell's top level).
  std::vector<std::string> guarded_imports;
  /// Later cells run guarded because they use a name a display import binds: "cell 6 (plt)".
  std::vector<std::string> name_guarded_cells;
  /// The names the display imports seen so far bind (plt, sns, tqdm), in order.
  std::vector<std::string> display_names;
  /// "skipped 2 cell magics, 1 shell line (IPython syntax; display() shows
  /// nothing)"; empty when nothing was skipped.
  std::string note() const;
};

/// The display and plotting modules whose absence skips a cell (by their
/// top-level package names), a fixed list.
const std::vector<const char*>& display_modules();

/// The first line of a guarded cell ("try:  # attnlab: cell 4 imports
/// matplotlib: ...") and its except line.
inline constexpr const char* kGuardOpen = "try:  # attnlab: cell ";
inline constexpr const char* kGuardClose =
    "except (ModuleNotFoundError, NameError) as _attnlab_missing:";

/// `python` (a converted notebook) with the guarded cells' statement lines
/// back at their own indentation: the text a person wrote, for recognising
/// its functions (never run).
std::string unguarded_cells(const std::string& python);

/// True for a file named *.ipynb (any case).
bool is_notebook(const std::filesystem::path& file);

/// Reads `notebook` (a regular file of at most kMaxNotebookBytes): its code
/// cells, each preceded by a "# --- cell N" line (N counts every cell of the
/// notebook, as Jupyter shows them), after the definitions of display() and
/// get_ipython(). Throws NotebookError naming what is wrong (not a regular
/// file, too large, not JSON and where, no "cells" list, a cell that is not
/// an object, a code cell whose source or cell_type is not text).
NotebookPython read_notebook(const std::filesystem::path& notebook);

/// read_notebook(notebook).python. Throws NotebookError.
std::string notebook_to_python(const std::filesystem::path& notebook);

}  // namespace attn::grader

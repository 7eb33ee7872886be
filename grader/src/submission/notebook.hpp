#pragma once
// Jupyter notebooks (.ipynb) as Python submissions: the code cells, in
// order, become one Python file. No Jupyter is needed: a notebook is JSON
// (nbformat 4: "cells", each with "cell_type" and "source", a string or a
// list of strings). A line of IPython syntax (`%magic`, `!shell`) is kept
// as a comment, so line numbers in tracebacks still count the same lines.

#include <filesystem>
#include <string>

namespace attn::grader {

/// True for a file named *.ipynb (any case).
bool is_notebook(const std::filesystem::path& file);

/// The Python text of `notebook`'s code cells, each preceded by a
/// "# --- cell N" line. Throws std::runtime_error ("... is not a notebook:
/// ...") if the file cannot be read or is not nbformat JSON with "cells".
std::string notebook_to_python(const std::filesystem::path& notebook);

}  // namespace attn::grader

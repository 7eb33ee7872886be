#pragma once
// The data files a submission's code names and cannot find where it runs
// (MANUAL.md, "Data files beside the code"): read from the code's text,
// never by running it, so the student's report can say which file is
// missing rather than only the teacher's console.

#include <filesystem>
#include <string>
#include <vector>

namespace attn::grader {

/// The relative file names given as a string literal to a call that opens a
/// file in `code` (a .py, .ipynb or C++ file): Python's open(), NumPy's
/// loadtxt / genfromtxt / load / fromfile, pandas' read_csv, C's fopen,
/// C++'s std::ifstream / std::fstream (constructor or .open()); not one
/// opened to be written (a mode "w", "a" or "x" after the name). Absolute
/// names and names climbing out with ".." are left out; each name once, in
/// order of first appearance. An unreadable file gives none.
std::vector<std::string> opened_file_names(const std::filesystem::path& code);

/// Of opened_file_names(code), those not present below `folder` (the folder
/// the submission runs in: its staged copy's, or its own).
std::vector<std::string> missing_data_files(const std::filesystem::path& code,
                                            const std::filesystem::path& folder);

}  // namespace attn::grader

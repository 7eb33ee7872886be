#pragma once
// A file whose contents are in the other language than its name says: a
// .cpp holding Python (`def f(...):`, `import numpy`, no braces) or a .py
// holding C++ (`#include`, `namespace`, `std::`). Such a file cannot be
// graded as named (the compiler or the interpreter fails on line 1), so the
// report says what it looks like and what to rename it to.

#include <filesystem>
#include <string>

namespace attn::grader {

/// "attention.cpp looks like Python (it has `def` and `import numpy` and no
/// braces): rename it to attention.py", or empty when the contents fit the
/// name (or the file is neither .py nor C++). Reads at most 64 KiB; never throws.
std::string wrong_language_note(const std::filesystem::path& file);

}  // namespace attn::grader

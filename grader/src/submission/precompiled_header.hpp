#pragma once
// GCC's precompiled form of an exercise's interface header (GCC manual,
// "Using Precompiled Headers"): made once per header content, compiler and
// flags in the compiler cache's folder (pch/), copied into each build
// folder beside the staged header. GCC looks for "attention.hpp.gch"
// before "attention.hpp" in each folder, and uses it only when it is valid
// for the compile (the same compiler and options, the header included
// before the first C token); otherwise it reads the header beside it as
// before, so a student's file compiles the same either way. Most of a C++ grade's time is the compiler reading
// Eigen through that header.

#include <filesystem>
#include <string>

#include "submission/cpp_build.hpp"

namespace attn::grader {

struct PrecompiledHeaders {
  /// Whether a .gch of each of the exercise's own interface headers was
  /// copied beside it.
  bool placed = false;
  /// For the report's runtime line: "made" (now, for this and later
  /// grades), "ready" (made before), "none (<why>)".
  std::string said;
};

/// Puts the precompiled form of each of `toolchain`'s own interface headers
/// (those of toolchain.interface_dir) beside its staged copy in `staged_dir`
/// (cpp_build's <workdir>/include/FN), for the compiler's first --version
/// line `compiler_version`.
/// Made only when the compiler cache is on (its folder holds them:
/// <cache dir>/pch/<key>/, about 100 MB each, key = compiler, version,
/// flags, include folders and the interface headers' contents), from the
/// checkout's headers, outside the sandbox (no student code), by one
/// grader at a time (a file lock beside it: the others wait and take it),
/// written under a temporary name and renamed; a stored one
/// is remade when a header it was made from (its -MD list: Eigen's) has
/// changed size or time. Never throws: any failure is `said`, nothing placed.
PrecompiledHeaders precompiled_headers(const CppToolchain& toolchain, const std::string& compiler_version,
                                       const std::filesystem::path& staged_dir);

}  // namespace attn::grader

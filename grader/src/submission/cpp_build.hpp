#pragma once
// Building a C++ submission: compile the file (and the student's helper .cpp
// files) against the exercise's header, link them with the prebuilt harness
// (which holds main and the protocol).

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "sandbox/command.hpp"
#include "submission/compiler_cache.hpp"

namespace attn::grader {

struct CppToolchain {
  std::string compiler;                   ///< g++ (the one that built the harness)
  /// exercises/FN: the folder of the exercise's interface header, first on the
  /// include path as the student would write it (-Iexercises/FN).
  std::string interface_dir;
  /// The interface headers (exercises/FN/x.hpp; F4 also F3's attention.hpp).
  /// The build copies them to <workdir>/include/<folder name>/ and compiles
  /// with -I<workdir>/include/FN instead of interface_dir, so the compiler
  /// needs no access to the checkout (the sandbox hides it) and a header's
  /// own relative include ("../F3/attention.hpp") still resolves.
  std::vector<std::string> interface_headers;
  /// The folders of the other exercises whose interface headers the
  /// sources include (exercises/F3 for a file of F2 and F3 graded as F2),
  /// after interface_dir, staged as it is; their headers are in
  /// interface_headers.
  std::vector<std::string> other_interface_dirs;
  std::vector<std::string> include_dirs;  ///< Eigen (and any other) after the interface folders
  /// The student's own folder (its helper headers), last on the include
  /// path; never used to make a precompiled header (precompiled_header.hpp).
  std::vector<std::string> student_include_dirs;
  std::string harness_library;            ///< libattnlab_cpp_harness_fN.a
  /// The function the submission must define, and where it is declared, for
  /// link errors: "f3::attention(...)", "exercises/F3/attention.hpp".
  std::string entry_function;
  std::string entry_header;
  std::string harness_target;             ///< its CMake target, for messages
  std::vector<std::string> flags = {"-std=c++20", "-O2"};
  std::chrono::milliseconds timeout{std::chrono::seconds(120)};  ///< per compiler run
  /// Applied to the compile and link commands (the sandbox); empty: none.
  std::function<void(Command&)> wrap;
  /// The compiler cache (compiler_cache.hpp); off by default. On, each
  /// compile runs as `ccache g++ ...` in the same sandbox as the compiler
  /// would, the build folder shown there as /build and the entry's folder
  /// as /submission (Command::moved), so a new temporary folder per grade
  /// still hits; outside the sandbox CCACHE_BASEDIR is the build folder.
  CompilerCache cache;
};

/// The toolchain for `exercise` ("F1".."F4", "T1", "M1", "C1"), from the
/// paths CMake configured: exercises/FN/ (its interface headers) and Eigen
/// on the include path, FN's harness; with `also` (other exercises whose
/// interface headers the sources include: recognise.hpp
/// included_interfaces), their folders and headers too, after FN's.
/// Throws std::invalid_argument for an exercise without a C++ harness
/// (`also`'s unknown ids are left out).
CppToolchain toolchain_for(const std::string& exercise, const std::vector<std::string>& also = {});

/// The shell line that builds and runs a pasted C++ reproduction
/// (report/reproduction.hpp), saved as repro.cpp beside the submission,
/// with the submission's sources `sources` (as named from that folder):
/// the grader's compiler and flags, -I the exercise's folder (and the
/// folders of `also`, as toolchain_for) and -I Eigen's include, then
/// `-o repro && ./repro`. Throws as toolchain_for.
std::string reproduction_build_command(const std::string& exercise,
                                       const std::vector<std::string>& sources,
                                       const std::vector<std::string>& also = {});

struct CppBuild {
  enum class Status {
    built,             ///< executable is ready
    not_gradable,      ///< the submission does not compile or link: diagnostics say why
    compiler_missing,  ///< an infrastructure problem: the compiler or harness is not there
  };
  Status status = Status::not_gradable;
  std::string executable;   ///< when built
  std::string compiler_version;  ///< "g++ (Debian 12.2.0-14) 12.2.0", first line of --version
  std::string command;      ///< the failing (or last) command, as text
  std::string diagnostics;  ///< the compiler's messages, trimmed to about 60 lines
  /// What the compiler cache did, from ccache's stats log: "hit", "miss",
  /// "1 of 2 files hit", "not used" (ccache ran the compiler as it is),
  /// "failed, compiled without it (ccache: error: ...)" (ccache's own
  /// failure, the compile run again without it), or "off: <why>"; empty
  /// when nothing was compiled.
  std::string cache;
  /// The precompiled interface header (precompiled_header.hpp): "made",
  /// "ready" or "none (<why>)"; empty when nothing was compiled.
  std::string precompiled;
};

/// Copies the interface headers to `workdir`/include, compiles `source`
/// into `workdir`/submission.o and each of `helper_sources` (the student's
/// other .cpp files) into its own object, and links them with the harness
/// into `workdir`/submission, each step within toolchain.timeout.
/// Never throws for a bad submission; throws std::system_error only if
/// processes cannot be created.
CppBuild build_cpp_submission(const std::filesystem::path& source,
                              const std::filesystem::path& workdir, const CppToolchain& toolchain,
                              const std::vector<std::filesystem::path>& helper_sources = {});

/// One line above a failed link's messages saying what they mean in the
/// student's terms, or "" when nothing is recognised: the file defines
/// main(), or does not define the exercise's function.
std::string link_error_hint(const std::string& linker_output, const CppToolchain& toolchain);

/// At most `max_lines` lines and `max_bytes` bytes of `text`, with a note of what was cut.
std::string trim_diagnostics(const std::string& text, std::size_t max_lines = 60,
                             std::size_t max_bytes = 6000);

}  // namespace attn::grader

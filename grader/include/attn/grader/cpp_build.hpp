#pragma once
// Building a C++ submission: compile the one file against the exercise's
// header, link it with the prebuilt harness (which holds main and the protocol).

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace attn::grader {

struct CppToolchain {
  std::string compiler;                   ///< g++ (the one that built the harness)
  std::vector<std::string> include_dirs;  ///< the exercise's header, Eigen
  std::string harness_library;            ///< libattnlab_cpp_harness_f3.a
  std::vector<std::string> flags = {"-std=c++20", "-O2"};
  std::chrono::milliseconds timeout{std::chrono::seconds(120)};  ///< per compiler run
};

/// The toolchain for exercise F3, from the paths CMake configured.
CppToolchain f3_toolchain();

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
};

/// Compiles `source` into `workdir`/submission.o and links it with the
/// harness into `workdir`/submission, each step within toolchain.timeout.
/// Never throws for a bad submission; throws std::system_error only if
/// processes cannot be created.
CppBuild build_cpp_submission(const std::filesystem::path& source,
                              const std::filesystem::path& workdir, const CppToolchain& toolchain);

/// At most `max_lines` lines and `max_bytes` bytes of `text`, with a note of what was cut.
std::string trim_diagnostics(const std::string& text, std::size_t max_lines = 60,
                             std::size_t max_bytes = 6000);

}  // namespace attn::grader

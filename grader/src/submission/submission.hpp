#pragma once
// Turning a submission file into a command that speaks the protocol:
// a Python file runs under the Python harness, a C++ file is compiled and
// linked with the C++ harness, any other executable file runs as it is.

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sandbox/command.hpp"
#include "sandbox/temp_dir.hpp"
#include "submission/compiler_cache.hpp"

namespace attn::grader {

enum class Language { python, cpp, executable };

/// "Python", "C++", "executable".
const char* language_name(Language l);

/// The file's extension in lower case (".py" for "SOL.PY"; "" for none).
std::string lower_extension(const std::filesystem::path& file);

/// By extension, in any case: .py -> python; .cpp, .cc, .cxx, .c++ and .C
/// (but not .c) -> cpp; otherwise an executable if the file has an execute
/// bit. nullopt if none applies.
std::optional<Language> detect_language(const std::filesystem::path& file);

/// A .json file, in any case: an answers file.
bool is_answers_file(const std::filesystem::path& file);

struct LaunchOptions {
  /// The exercise's id (exercises/registry.json), or an operation no
  /// exercise serves ("batched_attention"); unused for an executable.
  std::string exercise;
  std::optional<std::string> python;  ///< --python PATH
  ResourceLimits limits;
  std::chrono::milliseconds compile_timeout{std::chrono::seconds(120)};
  /// Applied to every command run for the submission, the compiler's steps
  /// and the ready command (the sandbox: Sandbox::apply). Empty: none.
  std::function<void(Command&)> wrap;
  /// The Python harness to run; empty: python_harness_path().
  std::string python_harness;
  /// C++: the student's other source files (.cpp, .cc, .cxx), compiled and
  /// linked with the entry (a class folder's helpers).
  std::vector<std::filesystem::path> cpp_helper_sources;
  /// C++: the folder holding the entry and its helpers (headers included),
  /// put on the include path so `#include "util.hpp"` resolves in the
  /// sandbox; empty when the entry has no helpers.
  std::filesystem::path cpp_helper_folder;
  /// The Python function to call instead of the exercise's names
  /// (`attnlab check --entry`; the harness's --entry); empty: the exercise's.
  std::string python_entry;
  /// C++: the harness calls the kernel once before its hello and says
  /// "weights": false if it left A empty (a kernel returning O alone). Set
  /// by `attnlab check`; a graded exercise must return A.
  bool cpp_probe_weights = false;
  /// C++: the compiler cache (compiler_cache.hpp; off by default; `grade`
  /// and `check` take it from compiler_cache_from_environment).
  CompilerCache compiler_cache;
};

struct Launch {
  enum class Status {
    ready,         ///< command runs the submission
    not_gradable,  ///< the submission's fault (compile error): message holds the diagnostics
    usage_error,   ///< the file is missing or of no known kind
    infrastructure_error,  ///< no Python with NumPy, no compiler...: not the submission's fault
  };
  Status status = Status::usage_error;
  Language language = Language::executable;
  Command command;
  std::string runtime;  ///< "/usr/bin/python3 (Python 3.11.2, NumPy 1.24.2)", the compiler...
  std::string message;  ///< why it is not ready
  std::string build_command;  ///< for C++: the failing compiler command
  /// For C++: the exercises whose interface headers the sources include
  /// (recognise.hpp included_interfaces), on the build's include path
  /// beside the graded exercise's (cpp_build.hpp toolchain_for).
  std::vector<std::string> cpp_other_interfaces;
  /// Holds the compiled executable for C++; removed when the Launch goes.
  std::shared_ptr<TempDir> workdir;
};

/// Prepares `file` for grading exercise options.exercise. Compiles C++ (in a
/// temporary directory), chooses the Python interpreter (find_python).
/// Does not throw.
Launch prepare_submission(const std::filesystem::path& file, const LaunchOptions& options);

/// The Python harness: next to the running attnlab binary if a copy is
/// there, else the one in the source tree (paths.hpp).
std::string python_harness_path();

}  // namespace attn::grader

#pragma once
// Choosing the Python interpreter for Python submissions: the first one that
// can import NumPy.

#include <optional>
#include <string>
#include <vector>

namespace attn::grader {

struct PythonInterpreter {
  std::string path;            ///< what the grader runs ("/usr/bin/python3")
  std::string executable;      ///< sys.executable as the interpreter reports it
  std::string python_version;  ///< "3.11.2"
  std::string numpy_version;   ///< "1.24.2"
};

struct PythonSearch {
  std::optional<PythonInterpreter> found;
  /// One line per interpreter tried and rejected, saying why
  /// ("python3 (/root/.pyenv/shims/python3): No module named 'numpy'").
  std::vector<std::string> rejected;
};

/// Runs `path -c "import numpy ..."` (60 s timeout: importing NumPy on a
/// loaded machine with a cold page cache can take many seconds) and reads
/// the versions.
/// Returns nullopt, with the reason in *why_not, if it cannot be run or
/// cannot import NumPy.
std::optional<PythonInterpreter> probe_python(const std::string& path, std::string* why_not);

/// The interpreter for Python submissions: `requested` if given (it must
/// import NumPy; no other is tried), otherwise /usr/bin/python3, then
/// `python3` on PATH. An interpreter found is remembered for the rest of
/// the process (one probe per grader run, not one per submission, so a busy
/// machine cannot make one submission's probe fail where another's passed);
/// a search that found none is tried again next time.
PythonSearch find_python(const std::optional<std::string>& requested);

/// The full path of `program` on PATH (or `program` itself if it contains
/// a '/'); nullopt if there is no executable file of that name.
std::optional<std::string> which(const std::string& program);

}  // namespace attn::grader

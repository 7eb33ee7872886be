// Choosing the Python interpreter: the first that can import NumPy.
#include "sandbox/python_finder.hpp"

#include <unistd.h>

#include <chrono>
#include <map>
#include <mutex>
#include <cstdlib>
#include <sstream>

#include "sandbox/exit_status.hpp"
#include "sandbox/run_command.hpp"

namespace attn::grader {
namespace {

constexpr const char* probe_script =
    "import sys, platform\n"
    "import numpy\n"
    "print('attnlab-probe|' + sys.executable + '|' + platform.python_version() + '|' + "
    "numpy.__version__)\n";

/// The last line of the output, for a short reason ("ModuleNotFoundError: ...").
std::string last_line(const std::string& text) {
  std::string last, line;
  std::istringstream in(text);
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

}  // namespace

std::optional<std::string> which(const std::string& program) {
  if (program.find('/') != std::string::npos) {
    if (access(program.c_str(), X_OK) == 0) return program;
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

std::optional<PythonInterpreter> probe_python(const std::string& path, std::string* why_not) {
  Command cmd;
  cmd.argv = {path, "-c", probe_script};
  cmd.merge_stderr = true;
  const CommandResult r = run_command(cmd, std::chrono::seconds(60));
  auto reject = [&](std::string reason) -> std::optional<PythonInterpreter> {
    if (why_not) *why_not = std::move(reason);
    return std::nullopt;
  };
  if (!r.started) return reject(r.output);
  if (r.timed_out) return reject("did not answer within 60 s");
  const auto at = r.output.find("attnlab-probe|");
  if (!r.succeeded() || at == std::string::npos) {
    const std::string why = last_line(r.output);
    return reject(why.empty() ? describe_exit(r.wait_status) : why);
  }
  std::string fields = r.output.substr(at + 14);
  fields = fields.substr(0, fields.find('\n'));
  PythonInterpreter p;
  p.path = path;
  std::istringstream in(fields);
  std::getline(in, p.executable, '|');
  std::getline(in, p.python_version, '|');
  std::getline(in, p.numpy_version, '|');
  return p;
}

namespace {

/// find_python without the memory: every candidate probed now.
PythonSearch search_python(const std::optional<std::string>& requested) {
  PythonSearch search;
  std::vector<std::string> candidates;
  if (requested) {
    candidates.push_back(*requested);
  } else {
    candidates = {"/usr/bin/python3", "python3"};
  }
  for (const auto& name : candidates) {
    const auto path = which(name);
    if (!path) {
      search.rejected.push_back(name + ": not found");
      continue;
    }
    std::string why;
    if (auto p = probe_python(*path, &why)) {
      search.found = std::move(p);
      return search;
    }
    search.rejected.push_back(name + (name == *path ? "" : " (" + *path + ")") + ": " + why);
  }
  return search;
}

}  // namespace

PythonSearch find_python(const std::optional<std::string>& requested) {
  static std::mutex mutex;
  static std::map<std::string, PythonSearch> found;  // by request ("" = the default search)
  const std::lock_guard<std::mutex> lock(mutex);
  const std::string key = requested ? "=" + *requested : "";
  if (const auto it = found.find(key); it != found.end()) return it->second;
  PythonSearch search = search_python(requested);
  if (search.found) found.emplace(key, search);
  return search;
}


}  // namespace attn::grader

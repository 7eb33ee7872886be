// TempDir: mkdtemp, removed recursively on destruction.
#include "sandbox/temp_dir.hpp"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <system_error>
#include <vector>

namespace attn::grader {

namespace {

std::filesystem::path temp_base() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

/// The pid in "attnlab-...pid<digits>-XXXXXX", or 0.
pid_t owner_pid(const std::string& name) {
  if (name.rfind("attnlab-", 0) != 0 || name.size() < 8 + 3 + 1 + 1 + 6) return 0;
  const std::size_t dash = name.size() - 7;
  if (name[dash] != '-') return 0;
  const std::size_t at = name.rfind("pid", dash);
  if (at == std::string::npos || at + 3 >= dash || name[at - 1] != '-') return 0;
  pid_t pid = 0;
  for (std::size_t k = at + 3; k < dash; ++k) {
    if (name[k] < '0' || name[k] > '9' || pid > 100000000) return 0;
    pid = pid * 10 + (name[k] - '0');
  }
  return pid;
}

}  // namespace

TempDir::TempDir(const std::string& prefix) {
  std::string pattern =
      (temp_base() / (prefix + "pid" + std::to_string(getpid()) + "-XXXXXX")).string();
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) {
    throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
  }
  path_ = buf.data();
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::vector<std::filesystem::path> remove_leftover_temp_dirs() {
  namespace fs = std::filesystem;
  std::vector<fs::path> removed;
  std::error_code ec;
  for (auto it = fs::directory_iterator(temp_base(), ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    const pid_t pid = owner_pid(it->path().filename().string());
    struct stat st {};
    if (pid <= 0 || ::lstat(it->path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
        st.st_uid != ::geteuid())
      continue;
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to judge)
    std::error_code rm;
    fs::remove_all(it->path(), rm);
    if (!rm) removed.push_back(it->path());
  }
  return removed;
}

}  // namespace attn::grader

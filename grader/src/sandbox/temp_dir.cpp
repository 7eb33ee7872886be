// TempDir: mkdtemp, removed recursively on destruction.
#include "sandbox/temp_dir.hpp"

#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

/// Removes `dir` as the user `uid` (group `gid`) through setpriv(1): what
/// a sandboxed submission's uid made (a compile's folder) is removed with
/// that uid's own rights, so a link it planted inside leads nowhere it could
/// not already write. True when rm exited 0.
bool remove_as(const std::filesystem::path& dir, uid_t uid, gid_t gid) {
  const std::string u = std::to_string(uid), g = std::to_string(gid);
  const char* setpriv = "/usr/bin/setpriv";
  std::vector<std::string> args = {setpriv, "--reuid", u, "--regid", g, "--clear-groups",
                                   "--", "/bin/rm", "-rf", "--", dir.string()};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  char* envp[] = {nullptr};
  pid_t child = 0;
  if (::posix_spawn(&child, setpriv, nullptr, nullptr, argv.data(), envp) != 0) return false;
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 && !std::filesystem::exists(dir);
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
    if (pid <= 0 || ::lstat(it->path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    // A sandbox uid's folder (a C++ compile's, made by the sandboxed
    // compiler): a uid with no account, and root to act for it.
    const bool sandbox_owned = st.st_uid != ::geteuid() && ::geteuid() == 0 && st.st_uid != 0 &&
                               ::getpwuid(st.st_uid) == nullptr;
    if (st.st_uid != ::geteuid() && !sandbox_owned) continue;
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to judge)
    if (sandbox_owned) {
      if (remove_as(it->path(), st.st_uid, st.st_gid)) removed.push_back(it->path());
      continue;
    }
    std::error_code rm;
    fs::remove_all(it->path(), rm);
    if (!rm) removed.push_back(it->path());
  }
  return removed;
}

}  // namespace attn::grader

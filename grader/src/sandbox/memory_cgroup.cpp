// Memory cgroups for submissions (v2 memory.max, else v1 memory.limit_in_bytes).
#include "sandbox/memory_cgroup.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace attn::grader {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Writes `text` to an existing control file; false with errno's words in `why`.
bool write_control(const fs::path& p, const std::string& text, std::string* why) {
  std::ofstream out(p);
  if (out) out << text << std::flush;
  if (out) return true;
  if (why) *why = "cannot write " + p.string() + ": " + std::strerror(errno);
  return false;
}

/// The value of `key` in a "key value" file (memory.events, memory.oom_control).
std::uint64_t keyed(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string k;
  std::uint64_t v = 0;
  while (in >> k >> v)
    if (k == key) return v;
  return 0;
}

/// Mount points from /proc/self/mountinfo: of the cgroup2 hierarchy
/// (`v2` true) or of the v1 hierarchy with the memory controller.
std::string mount_point(bool v2) {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    const auto dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::istringstream before(line.substr(0, dash)), after(line.substr(dash + 3));
    std::string id, parent, dev, root, point, type, source, options;
    before >> id >> parent >> dev >> root >> point;
    after >> type >> source >> options;
    if (v2 && type == "cgroup2") return point;
    if (!v2 && type == "cgroup" && ("," + options + ",").find(",memory,") != std::string::npos)
      return point;
  }
  return {};
}

/// The grader's own cgroup path in a hierarchy: "0::/x" for v2, "N:memory:/x" for v1.
std::string own_path(bool v2) {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    const auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    if (v2 && line.substr(0, a) == "0" && controllers.empty()) return line.substr(b + 1);
    if (!v2 && ("," + controllers + ",").find(",memory,") != std::string::npos)
      return line.substr(b + 1);
  }
  return {};
}

/// The grader's own cgroup folder in the v2 or v1 hierarchy, or empty.
fs::path own_folder(bool v2) {
  const std::string point = mount_point(v2);
  const std::string own = own_path(v2);
  if (point.empty() || own.empty()) return {};
  return fs::path(point) / fs::path(own).relative_path();
}

/// The pid in "attnlab-<pid>-<n>", or 0.
pid_t owner_pid(const std::string& name) {
  if (name.rfind("attnlab-", 0) != 0) return 0;
  const std::size_t dash = name.find('-', 8);
  if (dash == std::string::npos || dash == 8 || dash + 1 == name.size()) return 0;
  pid_t pid = 0;
  for (std::size_t k = 8; k < name.size(); ++k) {
    if (k == dash) continue;
    if (name[k] < '0' || name[k] > '9') return 0;
    if (k < dash) {
      if (pid > 100000000) return 0;
      pid = pid * 10 + (name[k] - '0');
    }
  }
  return pid;
}

/// SIGKILLs every process in the cgroup `dir` (cgroup.kill on v2, else one by one).
void kill_members(const fs::path& dir, bool v2) {
  if (v2 && write_control(dir / "cgroup.kill", "1", nullptr)) return;
  std::istringstream in(read_file(dir / "cgroup.procs"));
  pid_t pid = 0;
  while (in >> pid)
    if (pid > 0) ::kill(pid, SIGKILL);
}

/// Removes the cgroup `dir`. One with processes cannot be removed: kill
/// them, then wait a little for the kernel to reap them. True when gone.
bool kill_and_remove(const fs::path& dir, bool v2) {
  std::error_code ec;
  for (int attempt = 0; attempt < 50; ++attempt) {
    if (fs::remove(dir, ec) || !fs::exists(dir, ec)) return true;
    kill_members(dir, v2);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

std::string unique_name() {
  static std::atomic<unsigned> counter{0};
  return "attnlab-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
}

}  // namespace

std::unique_ptr<MemoryCgroup> MemoryCgroup::create(std::uint64_t bytes, std::string* why) {
  std::string reasons;
  for (const bool v2 : {true, false}) {
    const fs::path parent = own_folder(v2);
    const char* name = v2 ? "cgroup v2" : "cgroup v1";
    if (parent.empty()) {
      reasons += std::string(reasons.empty() ? "" : "; ") + name + ": no memory hierarchy mounted";
      continue;
    }
    std::string err;
    if (v2) {
      // The memory controller must be on offer and enabled for the children.
      const std::string offered = " " + read_file(parent / "cgroup.controllers") + " ";
      if (offered.find(" memory") == std::string::npos) {
        reasons += std::string(reasons.empty() ? "" : "; ") + name +
                   ": the memory controller is not available in " + parent.string();
        continue;
      }
      const std::string enabled = read_file(parent / "cgroup.subtree_control");
      if (enabled.find("memory") == std::string::npos &&
          !write_control(parent / "cgroup.subtree_control", "+memory", &err)) {
        reasons += std::string(reasons.empty() ? "" : "; ") + name + ": " + err;
        continue;
      }
    }
    const fs::path dir = parent / unique_name();
    std::error_code ec;
    if (!fs::create_directory(dir, ec)) {
      reasons += std::string(reasons.empty() ? "" : "; ") + name + ": cannot create " +
                 dir.string() + ": " + ec.message();
      continue;
    }
    const fs::path limit_file = dir / (v2 ? "memory.max" : "memory.limit_in_bytes");
    if (!write_control(limit_file, std::to_string(bytes), &err)) {
      fs::remove(dir, ec);
      reasons += std::string(reasons.empty() ? "" : "; ") + name + ": " + err;
      continue;
    }
    if (v2) (void)write_control(dir / "memory.swap.max", "0", nullptr);
    std::unique_ptr<MemoryCgroup> cg(new MemoryCgroup());
    cg->dir_ = dir.string();
    cg->procs_ = (dir / "cgroup.procs").string();
    cg->kind_ = v2 ? "cgroup v2 memory.max" : "cgroup v1 memory.limit_in_bytes";
    cg->v2_ = v2;
    cg->bytes_ = bytes;
    return cg;
  }
  if (why) *why = reasons;
  return nullptr;
}

std::uint64_t MemoryCgroup::oom_kills() const {
  const fs::path dir(dir_);
  return keyed(read_file(dir / (v2_ ? "memory.events" : "memory.oom_control")), "oom_kill");
}

void MemoryCgroup::kill_all() const { kill_members(dir_, v2_); }

std::size_t MemoryCgroup::remove_leftovers() {
  std::size_t removed = 0;
  for (const bool v2 : {true, false}) {
    const fs::path parent = own_folder(v2);
    if (parent.empty()) continue;
    std::error_code ec;
    for (auto it = fs::directory_iterator(parent, ec); !ec && it != fs::directory_iterator();
         it.increment(ec)) {
      const pid_t pid = owner_pid(it->path().filename().string());
      if (pid <= 0 || !it->is_directory(ec) || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
      if (kill_and_remove(it->path(), v2)) ++removed;
    }
  }
  return removed;
}

MemoryCgroup::~MemoryCgroup() { (void)kill_and_remove(dir_, v2_); }

}  // namespace attn::grader

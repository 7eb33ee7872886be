// Sandbox: bubblewrap around every submission process and compiler run.
#include "sandbox/sandbox.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "sandbox/no_follow.hpp"
#include "sandbox/python_finder.hpp"
#include "sandbox/run_command.hpp"

namespace attn::grader {
namespace {

namespace fs = std::filesystem;

/// Folders the sandbox shows as the system, read-only (or as symlinks).
const char* const kSystemRoots[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64",
                                    "/libx32", "/etc/alternatives", "/etc/ld.so.cache",
                                    "/dev", "/proc"};

bool is_under(const fs::path& p, const fs::path& root) {
  auto pi = p.begin();
  for (auto ri = root.begin(); ri != root.end(); ++ri, ++pi) {
    if (ri->empty()) continue;  // a trailing separator
    if (pi == p.end() || *pi != *ri) return false;
  }
  return true;
}

bool is_system(const fs::path& p) {
  return std::any_of(std::begin(kSystemRoots), std::end(kSystemRoots),
                     [&](const char* r) { return is_under(p, r); });
}

fs::path clean(const fs::path& p) { return p.lexically_normal(); }

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

bool env_true(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return false;
  const std::string s(v);
  return s != "0" && s != "false" && s != "no";
}

struct Mount {
  fs::path path;
  bool writable = false;
};

/// Command::moved: {host folder, inside path}.
using Moved = std::vector<std::pair<std::string, std::string>>;

/// The first line of `text`, trimmed, for a one-line status.
std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line.size() > 200 ? line.substr(0, 200) + "..." : line;
}

/// Appends bwrap arguments.
void add(std::vector<std::string>& a, std::initializer_list<std::string> items) {
  a.insert(a.end(), items);
}

/// bwrap's namespaces and session, the system read-only, a private /tmp of
/// `tmp_bytes`, /dev and /proc; `drop`: the command drops to a uid of its own
/// (setpriv) instead of a user namespace's.
void add_namespaces_and_system(std::vector<std::string>& a, bool is_root, bool drop,
                               std::uint64_t tmp_bytes) {
  // Namespaces and session.
  add(a, {"--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
          "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--hostname",
          "attnlab-sandbox"});
  if (!is_root) add(a, {"--unshare-user"});
  if (is_root && !drop) add(a, {"--unshare-user", "--uid", "65534", "--gid", "65534"});

  // The system, read-only.
  add(a, {"--ro-bind", "/usr", "/usr"});
  for (const char* d : {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
    std::error_code ec;
    const auto st = fs::symlink_status(d, ec);
    if (ec || !fs::exists(st)) continue;
    if (fs::is_symlink(st)) {
      add(a, {"--symlink", fs::read_symlink(d, ec).string(), d});
    } else if (fs::is_directory(st)) {
      add(a, {"--ro-bind", d, d});
    }
  }
  add(a, {"--perms", "0755", "--dir", "/etc"});
  for (const char* f : {"/etc/alternatives", "/etc/ld.so.cache"}) add(a, {"--ro-bind-try", f, f});
  add(a, {"--perms", "1777", "--size", std::to_string(tmp_bytes), "--tmpfs", "/tmp", "--dev",
          "/dev", "--proc", "/proc"});
}

/// Where path p appears inside: below a folder the command moves
/// (Command::moved) at its inside path; below a never-bound root (the
/// repository) under /attnlab, so not even the repository's location or its
/// other folders' names show; elsewhere (temporary folders) at the same path.
fs::path inside_path(const SandboxOptions& o, const fs::path& p, const Moved& moved) {
  for (const auto& [host, inside] : moved) {
    const fs::path from = clean(host);
    if (is_under(p, from)) return p == from ? fs::path(inside) : fs::path(inside) / p.lexically_relative(from);
  }
  for (std::size_t k = 0; k < o.never_bind.size(); ++k) {
    const fs::path root = clean(o.never_bind[k]);
    if (is_under(p, root) && p != root) {
      const fs::path base = k == 0 ? fs::path("/attnlab") : fs::path("/attnlab-" + std::to_string(k));
      return base / p.lexically_relative(root);
    }
  }
  return p;
}

/// The folders and files `cmd` names, to bind (its working folder writable),
/// sorted, without those another bind already covers. Never a never-bound
/// root or a folder above one; never a hidden path or anything below it,
/// except the grader's own temporary folders (below $TMPDIR), which may lie
/// below a hidden folder of submissions (/tmp, say).
std::vector<Mount> mounts_for(const Command& cmd, const SandboxOptions& o, const fs::path& cache) {
  std::vector<Mount> mounts;
  const fs::path temp_base = clean(env_or("TMPDIR", "/tmp"));
  auto forbidden = [&](const fs::path& p) {
    for (const auto& h : o.hidden)
      if (is_under(p, clean(h)) && !is_under(p, temp_base)) return true;
    for (const auto& n : o.never_bind)
      if (is_under(clean(n), p)) return true;
    return false;
  };
  auto consider = [&](const fs::path& raw, bool writable) {
    if (!raw.is_absolute()) return;
    fs::path p = clean(raw);
    for (const auto& w : o.show_whole)
      if (is_under(p, clean(w)) && !writable) p = clean(w);
    std::error_code ec;
    if (p == "/" || is_system(p) || !fs::exists(p, ec) || forbidden(p)) return;
    mounts.push_back({p, writable});
  };
  for (const std::string& arg : cmd.argv) {
    if (arg.rfind("-I/", 0) == 0 || arg.rfind("-L/", 0) == 0) {
      consider(arg.substr(2), false);
    } else if (!arg.empty() && arg[0] == '/') {
      consider(arg, false);
    }
  }
  // An interpreter outside the system: its installation (the folder above bin/).
  if (cmd.argv.size() > 1 && !cmd.argv[0].empty() && cmd.argv[0][0] == '/' &&
      !is_system(cmd.argv[0])) {
    std::error_code ec;
    for (const fs::path& exe : {clean(cmd.argv[0]), fs::canonical(cmd.argv[0], ec)}) {
      if (exe.empty() || exe.parent_path().filename() != "bin") continue;
      consider(exe.parent_path().parent_path(), false);
    }
  }
  if (!cmd.cwd.empty()) consider(cmd.cwd, true);
  if (!cache.empty()) consider(cache, true);

  std::sort(mounts.begin(), mounts.end(), [](const Mount& x, const Mount& y) {
    return x.path.string() < y.path.string();
  });
  std::vector<Mount> kept;
  for (const Mount& m : mounts) {
    const bool covered = std::any_of(kept.begin(), kept.end(), [&](const Mount& k) {
      return is_under(m.path, k.path) && (k.writable || !m.writable);
    });
    if (!covered) kept.push_back(m);
  }
  return kept;
}

/// The binds of `kept` at their inside paths, with the folders leading to
/// them; a writable one is chowned to `uid` when `drop` (the compiler, run
/// as the sandbox uid, writes the build folder).
void add_binds(std::vector<std::string>& a, const std::vector<Mount>& kept, const SandboxOptions& o,
               const Moved& moved, bool drop, uid_t uid) {
  // Folders leading to the mounts (bwrap would make them 0700, unreadable to
  // the sandbox uid).
  std::set<std::string> made = {"/", "/tmp", "/etc"};
  auto make_parents = [&](const fs::path& dest) {
    fs::path so_far = "/";
    for (const auto& part : dest.parent_path().relative_path()) {
      so_far /= part;
      if (made.count(so_far.string())) continue;
      if (is_system(so_far)) return;
      const bool inside_mount = std::any_of(kept.begin(), kept.end(), [&](const Mount& k) {
        return is_under(so_far, inside_path(o, k.path, moved));
      });
      if (inside_mount) return;
      made.insert(so_far.string());
      add(a, {"--perms", "0755", "--dir", so_far.string()});
    }
  };
  for (const Mount& m : kept) {
    const fs::path dest = inside_path(o, m.path, moved);
    make_parents(dest);
    add(a, {m.writable ? "--bind" : "--ro-bind", m.path.string(), dest.string()});
    if (m.writable && drop) {
      // The build folder is written by the compiler, which runs as the sandbox uid.
      (void)!chown(m.path.c_str(), uid, uid);
    }
  }
}

/// Hidden paths that a shown folder (a bind of `kept`, or the system) would
/// reveal: masked, a folder by an empty tmpfs, a file by /dev/null.
void add_hidden_masks(std::vector<std::string>& a, const std::vector<Mount>& kept,
                      const SandboxOptions& o, const Moved& moved) {
  for (const auto& h : o.hidden) {
    const fs::path p = clean(h);
    std::error_code ec;
    if (!fs::exists(p, ec)) continue;
    const bool shown = is_system(p) || std::any_of(kept.begin(), kept.end(), [&](const Mount& k) {
                         return is_under(p, k.path);
                       });
    if (!shown) continue;
    if (fs::is_directory(p, ec)) {
      add(a, {"--tmpfs", inside_path(o, p, moved).string()});
    } else {
      add(a, {"--ro-bind", "/dev/null", inside_path(o, p, moved).string()});
    }
  }
}

/// An absolute path as it appears inside (below a bind of `kept`); any other
/// text as it is.
std::string rewrite_path(const std::string& path, const std::vector<Mount>& kept,
                         const SandboxOptions& o, const Moved& moved) {
  if (path.empty() || path[0] != '/') return path;
  const fs::path p = clean(path);
  for (const Mount& k : kept)
    if (is_under(p, k.path)) return inside_path(o, p, moved).string();
  return path;
}

}  // namespace

std::uint64_t count_user_tasks(uid_t uid) {
  std::uint64_t tasks = 0;
  DIR* proc = opendir("/proc");
  if (!proc) return 0;
  while (dirent* e = readdir(proc)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream status(std::string("/proc/") + e->d_name + "/status");
    std::string line;
    bool mine = false;
    while (std::getline(status, line)) {
      if (line.rfind("Uid:", 0) == 0) {
        std::istringstream in(line.substr(4));
        long real = -1;
        in >> real;
        mine = real == static_cast<long>(uid);
        if (!mine) break;
      } else if (mine && line.rfind("Threads:", 0) == 0) {
        tasks += std::strtoull(line.c_str() + 8, nullptr, 10);
        break;
      }
    }
  }
  closedir(proc);
  return tasks;
}

StagedSubmission::StagedSubmission(
    const fs::path& original, const fs::path& harness,
    const std::vector<std::pair<fs::path, fs::path>>& helpers, const fs::path& root)
    : dir_("attnlab-submission-") {
  fs::permissions(dir_.path(), fs::perms(0711), fs::perm_options::replace);
  file_ = dir_.path() / original.filename();
  bool exec = false;
  const fs::path below = original.lexically_relative(root);
  if (root.empty() || below.empty() || *below.begin() == "..") {
    // A file the user named (it may be a link), or one the grader wrote (a notebook's Python).
    fs::copy_file(original, file_, fs::copy_options::overwrite_existing);
    exec = access(original.c_str(), X_OK) == 0;
  } else {
    exec = (copy_no_follow(original, file_, 0644, root) & 0111) != 0;
  }
  fs::permissions(file_,
                  exec ? fs::perms(0755) : fs::perms(0644),
                  fs::perm_options::replace);
  for (const auto& [src, rel] : helpers) {
    const fs::path dest = (dir_.path() / rel).lexically_normal();
    const auto inside = dest.lexically_relative(dir_.path());
    if (rel.is_absolute() || inside.empty() || *inside.begin() == ".." || dest == file_) continue;
    fs::create_directories(dest.parent_path());
    for (fs::path d = dest.parent_path(); d != dir_.path(); d = d.parent_path())
      fs::permissions(d, fs::perms(0755), fs::perm_options::replace);
    copy_no_follow(src, dest, 0644, root);
  }
  if (!harness.empty()) {
    // A name the submission's own file cannot take (it keeps its name).
    harness_ = dir_.path() / ".attnlab-harness" / harness.filename();
    fs::create_directory(harness_.parent_path());
    fs::permissions(harness_.parent_path(), fs::perms(0711), fs::perm_options::replace);
    fs::copy_file(harness, harness_, fs::copy_options::overwrite_existing);
    fs::permissions(harness_, fs::perms(0644), fs::perm_options::replace);
  }
}

Sandbox Sandbox::off(SandboxOptions options, const std::string& why) {
  Sandbox s;
  s.options_ = std::move(options);
  s.is_root_ = geteuid() == 0;
  s.have_setpriv_ = access(s.options_.setpriv.c_str(), X_OK) == 0;
  s.active_ = false;
  s.status_ = "OFF: " + why + "; grading continues under the resource limits alone";
  if (s.drops_to_own_uid())
    s.status_ += " (as root it still runs the submission as uid " +
                 std::to_string(s.options_.base_uid) + "+slot without capabilities)";
  return s;
}

Sandbox Sandbox::detect(SandboxOptions options) {
  if (env_true("ATTNLAB_NO_SANDBOX")) {
    return off(std::move(options), "switched off by ATTNLAB_NO_SANDBOX");
  }
  if (!options.enabled) return off(std::move(options), "switched off by --no-sandbox");
  options.bwrap = env_or("ATTNLAB_BWRAP", options.bwrap);

  Sandbox s;
  s.options_ = options;
  s.is_root_ = geteuid() == 0;
  const auto bwrap = which(options.bwrap);
  if (!bwrap) {
    return off(std::move(options),
               "bubblewrap is not available (" + options.bwrap +
                   " not found; Debian: apt-get install bubblewrap)");
  }
  s.bwrap_path_ = *bwrap;
  s.have_setpriv_ = access(options.setpriv.c_str(), X_OK) == 0;

  Command version;
  version.argv = {s.bwrap_path_, "--version"};
  version.merge_stderr = true;
  const CommandResult v = run_command(version, std::chrono::seconds(10));
  const std::string version_text =
      v.succeeded() ? first_line(v.output) : std::string("bubblewrap");

  // The self-test: the whole sandbox as a submission gets it (uid drop
  // included); a file bound read-only must be readable inside.
  try {
    TempDir probe_dir("attnlab-sandbox-test-");
    const fs::path probe = probe_dir.path() / "probe.txt";
    {
      std::ofstream(probe) << "attnlab\n";
    }
    fs::permissions(probe, fs::perms(0644), fs::perm_options::replace);
    // The repository is never bound, so it must not exist inside.
    std::string never = "/nonexistent-attnlab-probe";
    for (const auto& n : options.never_bind) {
      if (fs::exists(n)) {
        never = n.string();
        break;
      }
    }
    Command test;
    test.argv = {"/bin/sh", "-c", "test -r \"$1\" && ! test -e \"$2\" && echo ok",
                 "sh", probe.string(), never};
    test.merge_stderr = true;
    s.active_ = true;
    s.apply(test, 0);
    const CommandResult r = run_command(test, std::chrono::seconds(20));
    if (!r.succeeded() || r.output.find("ok") == std::string::npos) {
      std::string why = r.timed_out ? "timed out" : first_line(r.output);
      if (why.empty()) why = "exit status " + std::to_string(WEXITSTATUS(r.wait_status));
      return off(std::move(options), "bubblewrap (" + s.bwrap_path_ + ") failed its self-test: " + why);
    }
  } catch (const std::exception& e) {
    return off(std::move(options), std::string("the sandbox self-test could not run: ") + e.what());
  }

  s.active_ = true;
  // ccache's compiler runs in a bwrap of its own inside (the cache covered):
  // only where bwrap is a system program the sandbox shows, and nesting works.
  if (is_system(s.bwrap_path_)) {
    Command nested;
    nested.argv = {s.bwrap_path_, "--dev-bind", "/", "/", "--tmpfs", "/tmp", "--", "/bin/true"};
    nested.merge_stderr = true;
    nested.grader_tool = true;
    s.apply(nested, 0);
    s.hides_cache_ = run_command(nested, std::chrono::seconds(20)).succeeded();
  }
  std::string who;
  if (s.drops_to_own_uid()) {
    who = "runs as uid " + std::to_string(options.base_uid) + "+slot without capabilities";
  } else if (s.is_root_) {
    who = "runs as root in a user namespace without capabilities";
  } else {
    who = "runs as uid " + std::to_string(getuid()) + " in a user namespace";
  }
  s.status_ = version_text +
              ": no network, read-only system, private /tmp of " +
              std::to_string(options.tmp_bytes >> 20) + " MiB, only the submission and the "
              "harness visible; " + who;
  return s;
}

bool Sandbox::drops_to_own_uid() const { return is_root_ && have_setpriv_; }

uid_t Sandbox::runs_as(const Command& cmd, int slot) const {
  if (!cmd.compiler_cache.empty() && hides_cache_)
    return static_cast<uid_t>(options_.base_uid - 1);
  return uid_for(slot);
}

uid_t Sandbox::uid_for(int slot) const {
  const auto preferred = static_cast<std::uint32_t>(std::max(slot, 0));
  if (!drops_to_own_uid()) return static_cast<uid_t>(options_.base_uid + preferred);
  std::lock_guard<std::mutex> hold(leases_->mutex);
  auto it = leases_->by_slot.find(slot);
  if (it == leases_->by_slot.end()) {
    auto lease = UidLease::take(options_.base_uid, preferred, options_.uid_lock_dir);
    if (!lease) return static_cast<uid_t>(options_.base_uid + preferred);
    it = leases_->by_slot.emplace(slot, std::move(*lease)).first;
  }
  return it->second.uid();
}

ProcessLimit Sandbox::process_limit(int slot) const {
  ProcessLimit l;
  const std::uint64_t allowance = options_.process_allowance;
  if (allowance == 0) {
    l.how = "not limited (--max-processes 0)";
    return l;
  }
  if (drops_to_own_uid()) {
    l.value = allowance;
    l.how = std::to_string(allowance) + " processes and threads at once (RLIMIT_NPROC of uid " +
            std::to_string(uid_for(slot)) + ", a uid of its own)";
  } else if (!is_root_) {
    const std::uint64_t now = count_user_tasks(getuid());
    l.value = now + allowance;
    l.how = std::to_string(allowance) + " more processes and threads than uid " +
            std::to_string(getuid()) + " has now (RLIMIT_NPROC counts all of the user's: " +
            std::to_string(l.value) + ")";
  } else {
    l.how = "not enforced: RLIMIT_NPROC does not apply to root (needs the sandbox with "
            "setpriv, or attnlab run as another user)";
  }
  return l;
}

Sandbox::Plan Sandbox::plan(const Command& cmd, int slot) const {
  Plan plan;
  std::vector<std::string>& a = plan.prefix;
  a = {bwrap_path_};
  const bool drop = drops_to_own_uid();
  add_namespaces_and_system(a, is_root_, drop, options_.tmp_bytes);
  const fs::path cache = cache_folder(cmd, slot);
  const std::vector<Mount> kept = mounts_for(cmd, options_, cache);
  add_binds(a, kept, options_, cmd.moved, drop, runs_as(cmd, slot));
  add_hidden_masks(a, kept, options_, cmd.moved);

  // The command's arguments and environment, with the paths as they appear inside.
  plan.argv.reserve(cmd.argv.size());
  for (const std::string& arg : cmd.argv) {
    if (arg.rfind("-I/", 0) == 0 || arg.rfind("-L/", 0) == 0) {
      plan.argv.push_back(arg.substr(0, 2) + rewrite_path(arg.substr(2), kept, options_, cmd.moved));
    } else {
      plan.argv.push_back(rewrite_path(arg, kept, options_, cmd.moved));
    }
  }
  for (const auto& [key, value] : cmd.env) plan.env.emplace_back(key, rewrite_path(value, kept, options_, cmd.moved));
  if (!cmd.compiler_cache.empty()) {
    // ccache's cache: bound writable (a folder no other command's mounts
    // name), and covered by an empty folder for the compiler it runs (the
    // CCACHE_PREFIX script of cpp_build.cpp runs ATTNLAB_CCACHE_BWRAP), so
    // no `#include` or `.incbin` of the submission can read an entry.
    const bool bound = !cache.empty() && std::any_of(kept.begin(), kept.end(), [&](const Mount& k) {
      return k.writable && is_under(cache, k.path);
    });
    auto set = [&](const std::string& key, const std::string& value) {
      plan.env.erase(std::remove_if(plan.env.begin(), plan.env.end(),
                                    [&](const auto& kv) { return kv.first == key; }),
                     plan.env.end());
      plan.env.emplace_back(key, value);
    };
    if (bound) {
      const std::string inside = inside_path(options_, cache, cmd.moved).string();
      set("CCACHE_DIR", inside);
      set("ATTNLAB_CCACHE_HIDE", inside);
      set("ATTNLAB_CCACHE_BWRAP", bwrap_path_);
    } else {
      set("CCACHE_DISABLE", "1");  // ccache runs the compiler as it is
    }
  }
  const std::string cwd =
      cmd.cwd.empty() ? std::string("/tmp") : rewrite_path(cmd.cwd, kept, options_, cmd.moved);
  add(a, {"--chdir", cwd});
  add(a, {"--"});
  if (drop) {
    const std::string id = std::to_string(runs_as(cmd, slot));
    add(a, {options_.setpriv, "--reuid", id, "--regid", id, "--clear-groups", "--inh-caps=-all",
            "--bounding-set=-all", "--"});
  }
  return plan;
}

fs::path Sandbox::cache_folder(const Command& cmd, int slot) const {
  if (cmd.compiler_cache.empty() || !hides_cache_) return {};
  fs::path cache = clean(cmd.compiler_cache);
  if (!drops_to_own_uid()) return cache;
  // As root a compile through the cache runs as the cache's uid (runs_as),
  // which no submission runs as: the folder is that uid's own.
  const uid_t uid = runs_as(cmd, slot);
  cache /= "uid-" + std::to_string(uid);
  if (mkdir(cache.c_str(), 0700) != 0 && errno != EEXIST) return {};
  struct stat st {};
  if (lstat(cache.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return {};
  if (st.st_uid != uid && chown(cache.c_str(), uid, uid) != 0) return {};
  return cache;
}

std::vector<std::string> Sandbox::prefix_for(const Command& cmd, int slot) const {
  return plan(cmd, slot).prefix;
}

void Sandbox::apply(Command& cmd, int slot) const {
  const ProcessLimit limit = process_limit(slot);
  cmd.limits.processes = limit.value;
  if (!active_) {
    // Without bubblewrap, a grader running as root (Docker, Gradescope) still
    // never runs a submission as root: it drops to a uid of its own, which
    // can read neither the root-only teacher configuration nor the grader's
    // temporary folders except the one it works in.
    if (!drops_to_own_uid() || cmd.grader_tool) return;
    const uid_t uid = uid_for(slot);
    if (!cmd.cwd.empty()) (void)!chown(cmd.cwd.c_str(), uid, uid);
    const std::string id = std::to_string(uid);
    cmd.prefix = {options_.setpriv, "--reuid", id, "--regid", id, "--clear-groups",
                  "--inh-caps=-all", "--bounding-set=-all", "--"};
    return;
  }
  Plan p = plan(cmd, slot);
  // bwrap's options go in through descriptor 3 (--args), so its command line,
  // which the submission can read as /proc/1/cmdline, shows none of the
  // host's paths; only the command after "--" stays on it.
  const auto dashes = std::find(p.prefix.begin() + 1, p.prefix.end(), "--");
  cmd.fd3_data.clear();
  for (auto it = p.prefix.begin() + 1; it != dashes; ++it) {
    cmd.fd3_data += *it;
    cmd.fd3_data += '\0';
  }
  std::vector<std::string> prefix = {p.prefix.front(), "--args", "3"};
  prefix.insert(prefix.end(), dashes, p.prefix.end());
  cmd.prefix = std::move(prefix);
  cmd.argv = std::move(p.argv);
  cmd.env = std::move(p.env);
  // Nothing of the grader's environment goes in (tokens, paths of the checkout).
  cmd.inherit_environment = false;
  auto set_default = [&](const std::string& key, const std::string& value) {
    const bool given = std::any_of(cmd.env.begin(), cmd.env.end(),
                                   [&](const auto& kv) { return kv.first == key; });
    if (!given) cmd.env.emplace_back(key, value);
  };
  set_default("PATH", "/usr/local/bin:/usr/bin:/bin");
  set_default("HOME", "/tmp");
  set_default("TMPDIR", "/tmp");
  set_default("LANG", "C.UTF-8");
}

}  // namespace attn::grader

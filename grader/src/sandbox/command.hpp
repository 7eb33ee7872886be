#pragma once
// Command: what to run for a submission, and the limits it runs under.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace attn::grader {

/// setrlimit values applied in the child before exec. RLIMIT_CORE is always 0
/// (no core files from crashing submissions). 0 means "leave as inherited".
struct ResourceLimits {
  std::uint64_t address_space_bytes = std::uint64_t{4} << 30;  ///< RLIMIT_AS
  std::uint64_t cpu_seconds = 600;  ///< RLIMIT_CPU soft limit (SIGXCPU); hard = soft + 5
  std::uint64_t file_size_bytes = std::uint64_t{64} << 20;  ///< RLIMIT_FSIZE
  /// RLIMIT_NPROC: processes and threads of the child's *user*, all of them,
  /// not only the child's (the kernel counts per user; root is exempt).
  /// 0: leave as inherited. The sandbox sets it for a uid of its own
  /// (sandbox.hpp); without one it is the user's current count plus an allowance.
  std::uint64_t processes = 0;
};

struct Command {
  /// Program and arguments. argv[0] without '/' is looked up on PATH.
  std::vector<std::string> argv;
  /// Put in front of argv when spawning, e.g. a sandbox ("bwrap", "--unshare-all", ...,
  /// "--"). Empty: run argv directly.
  std::vector<std::string> prefix;
  /// Variables set in the child on top of the grader's environment.
  std::vector<std::pair<std::string, std::string>> env;
  /// False: the child gets only `env`, nothing of the grader's environment
  /// (the sandbox uses this so no token or path of the grader leaks in).
  bool inherit_environment = true;
  /// Working directory of the child; empty: the grader's.
  std::string cwd;
  ResourceLimits limits;
  /// Send the child's stderr into the stdout pipe (for compilers: one ordered text).
  bool merge_stderr = false;
  /// A cgroup's cgroup.procs file the child joins before exec (it writes
  /// "0" there; MemoryCgroup); empty: none. Failing to join is a spawn error.
  std::string cgroup_procs;
  /// Bytes the child can read from descriptor 3 (a sealed memory file), for
  /// arguments that must not show in /proc/PID/cmdline (bubblewrap's
  /// `--args 3`); empty: no descriptor 3.
  std::string fd3_data;
  /// A tool of the grader's run on the submission (the compiler), not the
  /// submission itself: without bubblewrap it keeps the grader's uid, since
  /// it must read the checkout's headers and harness libraries.
  bool grader_tool = false;
  /// Folders shown inside the sandbox at another path: {host folder, inside
  /// path} ("/tmp/attnlab-build-x1Y2" shown as "/build"), so what the command
  /// sees does not depend on a temporary folder's random name (the compiler
  /// cache's keys: cpp_build.hpp). Ignored without the sandbox.
  std::vector<std::pair<std::string, std::string>> moved;
  /// The compiler cache's folder (ccache's cache_dir; compiler_cache.hpp),
  /// empty: none. The sandbox binds it writable for ccache and covers it with
  /// an empty folder for the compiler ccache runs (Sandbox::apply); without
  /// the sandbox the command uses it as it is.
  std::string compiler_cache;

  /// prefix + argv, the full argument vector that is executed.
  std::vector<std::string> full_argv() const;
  /// The full argv as one shell-like line for reports (arguments with spaces quoted).
  std::string display() const;
};

}  // namespace attn::grader

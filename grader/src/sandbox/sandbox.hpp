#pragma once
// Sandbox: every process of a submission (and the compiler run on a C++
// submission) runs inside bubblewrap (bwrap) when it works on this machine:
//
//   - no network, no IPC, own PID and UTS namespaces, a new session;
//   - the system (/usr, /etc/alternatives, /etc/ld.so.cache) read-only;
//   - a private, empty /tmp; /dev and /proc of its own;
//   - of the rest of the file system only what the command names: the
//     submission (a private copy), the harness, the compiler's include
//     folders and harness library, read-only; the build folder writable for
//     the compiler only, and the compiler cache's folder for ccache alone
//     (Command::compiler_cache; the compiler runs where it is empty); never the repository, the solutions, the teacher
//     configuration, the reports or other submissions (`hidden`);
//   - an empty environment but for PATH, HOME, TMPDIR, LANG and the command's own;
//   - when the grader runs as root: the process runs as an unprivileged uid
//     of its own (base_uid + job slot, or the next free one when another
//     attnlab on the machine runs a grade as that uid: uid_lease.hpp) with
//     no capabilities (setpriv), so RLIMIT_NPROC counts its processes only.
//
// When bwrap is missing or fails its self-test (or is switched off), the
// report says so in one line and grading continues under the resource limits
// alone (command.hpp: ResourceLimits; child_process.hpp: process-group kill).

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sandbox/command.hpp"
#include "sandbox/uid_lease.hpp"
#include "sandbox/temp_dir.hpp"

namespace attn::grader {

struct SandboxOptions {
  /// false: --no-sandbox (or ATTNLAB_NO_SANDBOX=1 in the environment).
  bool enabled = true;
  /// The bwrap program; the environment variable ATTNLAB_BWRAP overrides it.
  std::string bwrap = "bwrap";
  /// setpriv (util-linux), used to drop root to `base_uid + slot`.
  std::string setpriv = "/usr/bin/setpriv";
  /// As root, the sandboxed process of job slot k runs as uid/gid base_uid + k,
  /// or the next free uid of base_uid .. base_uid + 1023 when another grade
  /// on the machine holds that one (UidLease).
  std::uint32_t base_uid = 64100;
  /// Where the uid leases' lock files are (UidLease::default_lock_dir()).
  std::filesystem::path uid_lock_dir = UidLease::default_lock_dir();
  /// Processes (and threads) a submission may have at once: RLIMIT_NPROC.
  std::uint64_t process_allowance = 64;
  /// Files and folders the sandbox never shows (and masks if they lie under
  /// a folder it does show): the teacher configuration, the repository's
  /// solutions, the report folder, the folders holding the submissions.
  std::vector<std::filesystem::path> hidden;
  /// Folders never bound as a whole, even if a command names them (the
  /// repository root): a command naming one of them or a folder above them
  /// gets no bind for it.
  std::vector<std::filesystem::path> never_bind;
  /// Folders shown whole, read-only, when a command names something inside
  /// them (the exercises' folder: one exercise's header includes another's).
  std::vector<std::filesystem::path> show_whole;
  /// Size of the private /tmp (a RAM file system), in bytes.
  std::uint64_t tmp_bytes = std::uint64_t{256} << 20;
};

/// How the process-count limit holds for a command (for the report).
struct ProcessLimit {
  std::uint64_t value = 0;  ///< RLIMIT_NPROC set in the child; 0: none
  std::string how;          ///< "64 at once (RLIMIT_NPROC of uid 64101, a uid of its own)"
};

class Sandbox {
 public:
  /// Reads the environment (ATTNLAB_NO_SANDBOX, ATTNLAB_BWRAP), finds bwrap
  /// and runs its self-test (`true` inside the full sandbox). Does not throw.
  static Sandbox detect(SandboxOptions options);
  /// A sandbox that is off, with `why` for the status line.
  static Sandbox off(SandboxOptions options, const std::string& why);

  bool active() const { return active_; }
  /// One line for reports: "bubblewrap 0.8.0: no network, ..." or
  /// "OFF: ... ; grading continues under the resource limits alone".
  const std::string& status() const { return status_; }
  const SandboxOptions& options() const { return options_; }

  /// As root with setpriv: every process of a submission runs as
  /// base_uid + slot without capabilities, with bubblewrap or without it
  /// (without it, a tool of the grader's, Command::grader_tool, does not).
  bool drops_to_own_uid() const;

  /// The process limit apply() sets for job slot `slot`.
  ProcessLimit process_limit(int slot) const;

  /// Rewrites `cmd` for job slot `slot`: sets its process limit; when the
  /// sandbox is off but drops_to_own_uid(), a setpriv prefix (and cmd.cwd
  /// chowned to that uid); when the sandbox is active, the bwrap prefix with the binds for what cmd
  /// names (absolute paths in argv, "-I"/"-L" folders, an interpreter's
  /// installation outside /usr) and, if cmd.cwd is set, that folder writable
  /// (the compiler's build folder; chowned to the sandbox uid as root).
  /// Paths below a folder of cmd.moved appear at its inside path, paths
  /// below a never-bound root (the repository) below /attnlab, and
  /// cmd.argv and the paths in cmd.env are rewritten to match; others keep
  /// their paths. cmd.compiler_cache (ccache's folder) is bound writable
  /// (cache_folder) and its variables set for ccache, or, when it cannot be
  /// hidden from the compiler, CCACHE_DISABLE=1.
  void apply(Command& cmd, int slot) const;

  /// The bwrap arguments apply() would put in front of `cmd` (for tests and reports).
  std::vector<std::string> prefix_for(const Command& cmd, int slot) const;

 private:
  struct Plan {
    std::vector<std::string> prefix;  ///< bwrap and its arguments
    std::vector<std::string> argv;    ///< the command's, paths as they appear inside
    /// The command's environment, paths as they appear inside, and its
    /// compiler cache's variables (CCACHE_DIR, ATTNLAB_CCACHE_HIDE, or CCACHE_DISABLE).
    std::vector<std::pair<std::string, std::string>> env;
  };
  Plan plan(const Command& cmd, int slot) const;
  /// The folder cmd.compiler_cache is used as in job slot `slot`: itself,
  /// or as root with setpriv its subfolder uid-N owned by runs_as's uid
  /// (made here); empty when the cache cannot be hidden from the compiler
  /// (hides_cache_ false) or the subfolder cannot be made.
  std::filesystem::path cache_folder(const Command& cmd, int slot) const;
  /// The uid a submission of job slot `slot` runs as, leased (UidLease) on
  /// first use for as long as this Sandbox and its copies live; base_uid +
  /// slot when no lease can be taken.
  uid_t uid_for(int slot) const;
  /// The uid `cmd` runs as when drops_to_own_uid(): uid_for(slot), but
  /// base_uid - 1 for a compile through the compiler cache, one uid for
  /// every job slot so they share the cache, and one no submission runs as.
  uid_t runs_as(const Command& cmd, int slot) const;

  SandboxOptions options_;
  bool active_ = false;
  bool is_root_ = false;
  bool have_setpriv_ = false;
  /// bwrap (a system path) runs inside the sandbox: ccache's compiler can be
  /// given a view without the cache (the self-test's second run).
  bool hides_cache_ = false;
  std::string bwrap_path_;
  std::string status_;
  struct Leases {
    std::mutex mutex;
    std::map<int, UidLease> by_slot;
  };
  std::shared_ptr<Leases> leases_ = std::make_shared<Leases>();
};

/// Processes and threads the user `uid` has now (from /proc).
std::uint64_t count_user_tasks(uid_t uid);

/// A private copy of a submission file, the one thing of the submission's
/// folder the sandbox shows: <tmp>/attnlab-submission-pid<pid>-XXXXXX/<file name>
/// (the folder 0700, removed with the object; the file 0644, or 0755 if the
/// original is executable, so the sandbox's own uid can read it).
class StagedSubmission {
 public:
  /// Copies `original` (and, if given, the Python harness `harness`) into a
  /// private folder that other users may pass through but not list (0711),
  /// so a submission run as the sandbox's uid reads its copies and nothing
  /// of the checkout. Throws std::system_error /
  /// std::filesystem::filesystem_error if it cannot copy.
  /// `helpers` ({file, path relative to the copy's folder}) are copied
  /// too, read-only; one whose path leaves the folder is skipped.
  /// `root` (a student's folder; empty for a file the user named) confines
  /// the reads: the helpers, and the original when it lies below `root`,
  /// are opened below it without following any link (no_follow.hpp) and
  /// must be regular files, else RefusedFile is thrown. An original not
  /// below `root` (a file the user named, which may be a link; a notebook's
  /// Python, written by the grader) is copied as named; with `root` empty
  /// only the helpers' last components are not followed.
  explicit StagedSubmission(
      const std::filesystem::path& original, const std::filesystem::path& harness = {},
      const std::vector<std::pair<std::filesystem::path, std::filesystem::path>>& helpers = {},
      const std::filesystem::path& root = {});

  const std::filesystem::path& path() const { return file_; }
  const std::filesystem::path& folder() const { return dir_.path(); }
  /// The copy of the harness; empty when none was given.
  const std::filesystem::path& harness() const { return harness_; }

 private:
  TempDir dir_;
  std::filesystem::path file_;
  std::filesystem::path harness_;
};

}  // namespace attn::grader

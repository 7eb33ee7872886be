#pragma once
// MemoryCgroup: one memory limit for every process of a submission.
//
// RLIMIT_AS bounds each process alone: five children of 1.4 GiB each pass a
// 2 GiB limit, and files in the sandbox's private /tmp (RAM) count against
// no process at all. A memory cgroup bounds the whole: every process the
// submission starts joins it (the child writes "0" to its cgroup.procs
// before exec, Command::cgroup_procs), and the kernel charges their pages,
// tmpfs files included, to it; past the limit the kernel's OOM killer ends
// a process of the submission, never the grader.
//
// cgroup v2 (memory.max) is used where the memory controller can be enabled
// below the grader's own cgroup, else cgroup v1 (memory.limit_in_bytes).
// Where neither is writable (an unprivileged user, most containers), create()
// says why and the limits are per process only (docs/MANUAL.md,
// "Limits and sandbox").

#include <cstdint>
#include <memory>
#include <string>

namespace attn::grader {

class MemoryCgroup {
 public:
  /// A new cgroup with a limit of `bytes` (> 0) below the grader's own
  /// memory cgroup, named after the grader's pid and a counter. nullptr when
  /// no memory controller is writable here; `why` (if given) then says why.
  static std::unique_ptr<MemoryCgroup> create(std::uint64_t bytes, std::string* why = nullptr);
  /// Kills any process still in it and removes it.
  ~MemoryCgroup();
  /// Removes the cgroups that graders which are gone left below this
  /// grader's own cgroup (v2 and v1): those named attnlab-<pid>-<n> whose
  /// pid no longer exists (kill(pid, 0) fails with ESRCH), after killing
  /// any process still in them. A grader killed with kill -9 leaves its
  /// cgroups behind; the next run on the same cgroup removes them. Returns
  /// how many were removed; never throws.
  static std::size_t remove_leftovers();
  MemoryCgroup(const MemoryCgroup&) = delete;
  MemoryCgroup& operator=(const MemoryCgroup&) = delete;

  /// The file a process writes "0" to in order to join (cgroup.procs).
  const std::string& procs_file() const { return procs_; }
  /// "cgroup v2 memory.max" or "cgroup v1 memory.limit_in_bytes".
  const std::string& kind() const { return kind_; }
  std::uint64_t limit_bytes() const { return bytes_; }
  /// How many times the kernel's OOM killer ended a process in it.
  std::uint64_t oom_kills() const;
  /// SIGKILLs every process in it (cgroup.kill on v2, else one by one).
  void kill_all() const;

 private:
  MemoryCgroup() = default;
  std::string dir_, procs_, kind_;
  bool v2_ = false;
  std::uint64_t bytes_ = 0;
};

}  // namespace attn::grader

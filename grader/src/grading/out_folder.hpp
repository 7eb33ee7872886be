#pragma once
// The --out folder of a class grading (batch.hpp) or of `attnlab merge`:
// one writer at a time, every file replaced whole, never in part
// (sandbox/atomic_file.hpp).
//
// Layout of OUT: summary.csv, summary.json, summary.txt (the gradebook,
// gradebook.hpp); students/<stem>.txt, .results.json, .junit.xml (each
// submission's reports, student_names.hpp report_stem); .attnlab-lock (the
// lock a writer holds, with its pid).

#include <filesystem>
#include <stdexcept>
#include <string>

namespace attn::grader {

/// The folder of the per-submission reports inside OUT.
inline constexpr const char* kReportsFolder = "students";
/// The lock file inside OUT.
inline constexpr const char* kLockFile = ".attnlab-lock";

/// An output folder that cannot be used: read-only, not creatable, or
/// another attnlab writing to it. what() is the whole message.
struct OutFolderError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The one writer of an output folder while it lives: an advisory lock
/// (flock(2), LOCK_EX | LOCK_NB) on OUT/.attnlab-lock, released when the
/// process ends however it ends (kill -9 included), so a stale lock never
/// blocks. The file descriptor is close-on-exec; forked graders share it.
class OutLock {
 public:
  /// Creates `dir` and dir/students if needed, checks that both can be
  /// written (a probe file is created, written, fsync'd and removed: a
  /// read-only or full folder is found here, before anyone is graded) and
  /// takes the lock without waiting. `command` names the caller in the
  /// message ("attnlab grade"). Throws OutFolderError: the folder cannot be
  /// created or written (errno's words), or another attnlab holds the lock
  /// (its pid, when it wrote one).
  OutLock(const std::filesystem::path& dir, const std::string& command);
  ~OutLock();
  OutLock(const OutLock&) = delete;
  OutLock& operator=(const OutLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace attn::grader

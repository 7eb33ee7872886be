#pragma once
// The --out folder of a class grading (batch.hpp) or of `attnlab merge`:
// one writer at a time, every file replaced whole, never in part.
//
// Layout of OUT: summary.csv, summary.json, summary.txt (the gradebook,
// gradebook.hpp); students/<stem>.txt, .results.json, .junit.xml (each
// submission's reports, student_names.hpp report_stem); .attnlab-lock (the
// lock a writer holds, with its pid).

#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

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

/// Replaces `file` by `content` whole: written to a temporary file with a
/// unique name in the same folder (mkstemp(3)), fsync'd, renamed over
/// `file` (rename(2) is atomic: a reader sees the old file or the new one,
/// never a part), then the folder fsync'd. Throws std::runtime_error naming
/// the file and errno's words ("No space left on device", "File too
/// large"); `file` is then as it was and the temporary is removed.
void write_file_atomically(const std::filesystem::path& file, const std::string& content);

/// Several files replaced together: every one is written to its temporary
/// first; only when all are written are they renamed, in the order given
/// (put the one readers trust last). Throws as write_file_atomically,
/// having renamed none when a write fails.
void write_files_atomically(const std::vector<std::pair<std::filesystem::path, std::string>>& files);

}  // namespace attn::grader

#pragma once
// ChildProcess: one spawned program with pipes for stdin, stdout and stderr,
// in its own process group, under setrlimit limits. The grader talks to a
// submission through it; a timeout or crash is dealt with by killing the
// whole process group.
//
// Not thread-safe. Creating one sets SIGPIPE to "ignore" in the grader (a
// write to a dead child must fail with EPIPE, not kill the grader); the
// child gets the default disposition back.

#include <sys/types.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "sandbox/command.hpp"
#include "sandbox/tail_buffer.hpp"

namespace attn::grader {

/// The program could not be started (not found, not executable...).
class SpawnError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct LineResult {
  enum class Status {
    line,      ///< text holds one line of stdout, without the '\n'
    timeout,   ///< no complete line before the deadline
    closed,    ///< the child closed stdout (it exited or crashed); text holds any partial line
    too_long,  ///< the line exceeds the limit (max_line_bytes)
  };
  Status status = Status::timeout;
  std::string text;
};

class ChildProcess {
 public:
  /// Longest stdout line accepted (a 1000 x 1000 reply is about 25 MB).
  static constexpr std::size_t max_line_bytes = std::size_t{256} << 20;

  /// Spawns command.full_argv() with setpgid(0, 0), the limits of
  /// command.limits, RLIMIT_CORE = 0, every other descriptor closed, and
  /// PR_SET_PDEATHSIG = SIGKILL (it dies if the grader dies).
  /// Keeps the last `stderr_tail_bytes` of the child's stderr.
  /// Throws SpawnError if the program cannot be executed (the message names
  /// it and says why), std::system_error if pipes or fork fail.
  explicit ChildProcess(const Command& command, std::size_t stderr_tail_bytes = 4096);
  ~ChildProcess();  ///< kills the process group if still running, and reaps
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  /// Writes `line` and '\n' to the child's stdin and reads the next line of
  /// its stdout, both within `timeout`; stderr is drained meanwhile.
  LineResult exchange(std::string_view line, std::chrono::milliseconds timeout);
  /// Reads the next line of stdout within `timeout` (stderr drained meanwhile).
  LineResult read_line(std::chrono::milliseconds timeout);
  /// The longest stdout line the next reads accept (at most max_line_bytes):
  /// a longer one is LineResult::Status::too_long, and no more than about
  /// this many bytes (plus one read's 64 KiB) are held while reading it.
  void set_line_limit(std::size_t bytes) { line_limit_ = std::min(bytes, max_line_bytes); }
  std::size_t line_limit() const { return line_limit_; }
  /// Closes the child's stdin: a harness takes EOF as "exit now".
  void close_stdin();
  /// Reads stdout (appended to *out, up to out_limit bytes; the rest is
  /// dropped) and stderr until both are closed or `timeout` passes.
  /// Returns true if both were closed in time.
  bool drain(std::chrono::milliseconds timeout, std::string* out, std::size_t out_limit);
  /// Waits up to `grace` for the child to exit by itself, then kills the
  /// process group (SIGKILL); reaps the child. Returns its wait status.
  /// Calling it again returns the same status.
  int finish(std::chrono::milliseconds grace);
  /// Kills the process group with SIGKILL at once and reaps. Returns the wait status.
  int kill();

  pid_t pid() const { return pid_; }
  /// The wait status once reaped.
  std::optional<int> wait_status() const { return status_; }
  const TailBuffer& stderr_tail() const { return stderr_tail_; }

 private:
  LineResult pump(std::chrono::steady_clock::time_point deadline, std::string_view out);
  void read_available(int& fd, bool is_stdout);
  void drain_stderr_briefly();
  void reap_blocking();
  static void close_fd(int& fd);

  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  std::string stdout_buffer_;
  std::size_t stdout_scan_from_ = 0;  ///< bytes of stdout_buffer_ known to hold no '\n'
  TailBuffer stderr_tail_;
  std::size_t line_limit_ = max_line_bytes;
  std::optional<int> status_;
};

}  // namespace attn::grader

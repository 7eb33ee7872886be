// ChildProcess: fork/exec with pipes, own process group, rlimits, poll-based I/O.
#include "sandbox/child_process.hpp"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <system_error>
#include <vector>

extern char** environ;

namespace attn::grader {
namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void throw_errno(const char* what) {
  throw std::system_error(errno, std::generic_category(), what);
}

void set_nonblocking(int fd) {
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) throw_errno("fcntl(O_NONBLOCK)");
}

int millis_until(Clock::time_point deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  if (left <= 0) return 0;
  return static_cast<int>(std::min<long long>(left, 1 << 30));
}

/// The environment for the child: the grader's, with command.env set on top.
std::vector<std::string> child_environment(const Command& command) {
  std::vector<std::string> env;
  for (char** e = environ; command.inherit_environment && e && *e; ++e) {
    std::string_view entry(*e);
    const auto key = entry.substr(0, entry.find('='));
    const bool overridden = std::any_of(command.env.begin(), command.env.end(),
                                        [&](const auto& kv) { return kv.first == key; });
    if (!overridden) env.emplace_back(entry);
  }
  for (const auto& [k, v] : command.env) env.push_back(k + "=" + v);
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> ptrs;
  for (auto& s : strings) ptrs.push_back(s.data());
  ptrs.push_back(nullptr);
  return ptrs;
}

void set_limit(int resource, rlim_t soft, rlim_t hard) {
  struct rlimit current {};
  if (getrlimit(resource, &current) != 0) return;
  // Never raise a hard limit the grader itself runs under.
  if (current.rlim_max != RLIM_INFINITY) {
    hard = std::min(hard, current.rlim_max);
    soft = std::min(soft, hard);
  }
  struct rlimit l {soft, hard};
  setrlimit(resource, &l);
}

/// Runs in the child between fork and exec: only async-signal-safe calls.
[[noreturn]] void exec_child(const Command& command, pid_t grader, int in_read, int out_write,
                             int err_write, int report_fd, int data_fd, char* const* argv,
                             char* const* envp) {
  setpgid(0, 0);
  // Its own process group keeps the child out of the terminal's Ctrl-C, so
  // make sure it dies with the grader instead of looping on.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != grader) _exit(127);
  // The grader ignores SIGPIPE and SIGXFSZ; ignored signals survive exec, so
  // restore the defaults.
  signal(SIGPIPE, SIG_DFL);
  signal(SIGXFSZ, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);

  if (dup2(in_read, 0) < 0 || dup2(out_write, 1) < 0 ||
      dup2(command.merge_stderr ? out_write : err_write, 2) < 0) {
    const int e = errno;
    (void)!write(report_fd, &e, sizeof e);
    _exit(127);
  }
  // Every descriptor above 2 is closed at exec (the report pipe is already CLOEXEC).
  if (syscall(SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */) != 0) {
    const long max_fd = std::min(sysconf(_SC_OPEN_MAX), 65536L);
    for (int fd = 3; fd < max_fd; ++fd) {
      if (fd != report_fd) fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
  }

  if (data_fd >= 0 && report_fd == 3) report_fd = fcntl(3, F_DUPFD_CLOEXEC, 4);  // keep 3 free
  if (data_fd >= 0) {
    // Descriptor 3 carries fd3_data; dup2 clears close-on-exec, and when the
    // memory file already is 3 the flag is cleared by hand.
    if (data_fd == 3 ? fcntl(3, F_SETFD, 0) != 0 : dup2(data_fd, 3) < 0) {
      const int e = errno;
      (void)!write(report_fd, &e, sizeof e);
      _exit(127);
    }
  }
  if (!command.cgroup_procs.empty()) {
    const int fd = open(command.cgroup_procs.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "0", 1) != 1) {
      const int e = errno;
      (void)!write(report_fd, &e, sizeof e);
      _exit(127);
    }
    close(fd);
  }

  set_limit(RLIMIT_CORE, 0, 0);
  const auto& lim = command.limits;
  if (lim.address_space_bytes) set_limit(RLIMIT_AS, lim.address_space_bytes, lim.address_space_bytes);
  if (lim.cpu_seconds) set_limit(RLIMIT_CPU, lim.cpu_seconds, lim.cpu_seconds + 5);
  if (lim.file_size_bytes) set_limit(RLIMIT_FSIZE, lim.file_size_bytes, lim.file_size_bytes);
  if (lim.processes) set_limit(RLIMIT_NPROC, lim.processes, lim.processes);

  if (!command.cwd.empty() && chdir(command.cwd.c_str()) != 0) {
    const int e = errno;
    (void)!write(report_fd, &e, sizeof e);
    _exit(127);
  }
  execvpe(argv[0], argv, envp);
  const int e = errno;
  (void)!write(report_fd, &e, sizeof e);
  _exit(127);
}

}  // namespace

void ChildProcess::close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

ChildProcess::ChildProcess(const Command& command, std::size_t stderr_tail_bytes)
    : stderr_tail_(stderr_tail_bytes) {
  static const bool sigpipe_ignored = [] {
    signal(SIGPIPE, SIG_IGN);
    return true;
  }();
  (void)sigpipe_ignored;

  std::vector<std::string> argv_strings = command.full_argv();
  if (argv_strings.empty()) throw SpawnError("no program to run (empty command)");
  std::vector<std::string> env_strings = child_environment(command);
  std::vector<char*> argv = c_strings(argv_strings);
  std::vector<char*> envp = c_strings(env_strings);

  int in[2], out[2], err[2], report[2];
  if (pipe2(in, O_CLOEXEC) != 0) throw_errno("pipe");
  if (pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]);
    throw_errno("pipe");
  }
  if (pipe2(err, O_CLOEXEC) != 0) {
    for (int fd : {in[0], in[1], out[0], out[1]}) ::close(fd);
    throw_errno("pipe");
  }
  if (pipe2(report, O_CLOEXEC) != 0) {
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) ::close(fd);
    throw_errno("pipe");
  }

  // fd3_data travels in a memory file, sealed so the child cannot change it.
  int data_fd = -1;
  if (!command.fd3_data.empty()) {
    data_fd = memfd_create("attnlab-args", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    const std::string& d = command.fd3_data;
    if (data_fd < 0 || ::write(data_fd, d.data(), d.size()) != static_cast<ssize_t>(d.size()) ||
        lseek(data_fd, 0, SEEK_SET) != 0 ||
        fcntl(data_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
      const int e = errno;
      if (data_fd >= 0) ::close(data_fd);
      for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1], report[0], report[1]}) ::close(fd);
      errno = e;
      throw_errno("memfd for the sandbox's arguments");
    }
  }

  const pid_t grader = getpid();
  pid_ = fork();
  if (pid_ == 0) {
    exec_child(command, grader, in[0], out[1], err[1], report[1], data_fd, argv.data(),
               envp.data());
  }
  const int fork_errno = errno;
  for (int fd : {in[0], out[1], err[1], report[1]}) ::close(fd);
  if (data_fd >= 0) ::close(data_fd);
  stdin_fd_ = in[1];
  stdout_fd_ = out[0];
  stderr_fd_ = err[0];
  if (pid_ < 0) {
    for (int fd : {report[0], stdin_fd_, stdout_fd_, stderr_fd_}) ::close(fd);
    stdin_fd_ = stdout_fd_ = stderr_fd_ = -1;
    errno = fork_errno;
    throw_errno("fork");
  }
  setpgid(pid_, pid_);  // also done by the child; whichever runs first wins the race

  // The report pipe closes at a successful exec; otherwise it carries errno.
  int child_errno = 0;
  ssize_t n;
  do {
    n = ::read(report[0], &child_errno, sizeof child_errno);
  } while (n < 0 && errno == EINTR);
  ::close(report[0]);
  if (n == static_cast<ssize_t>(sizeof child_errno)) {
    reap_blocking();
    close_fd(stdin_fd_);
    close_fd(stdout_fd_);
    close_fd(stderr_fd_);
    throw SpawnError("cannot run " + argv_strings.front() + ": " + std::strerror(child_errno));
  }
  set_nonblocking(stdin_fd_);
  set_nonblocking(stdout_fd_);
  set_nonblocking(stderr_fd_);
}

ChildProcess::~ChildProcess() {
  if (!status_ && pid_ > 0) kill();
  close_fd(stdin_fd_);
  close_fd(stdout_fd_);
  close_fd(stderr_fd_);
}

void ChildProcess::read_available(int& fd, bool is_stdout) {
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      if (is_stdout) {
        stdout_buffer_.append(buf, static_cast<std::size_t>(n));
        if (stdout_buffer_.size() > line_limit_) return;
      } else {
        stderr_tail_.append(std::string_view(buf, static_cast<std::size_t>(n)));
      }
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    close_fd(fd);  // EOF or a read error: the stream is over
    return;
  }
}

LineResult ChildProcess::pump(Clock::time_point deadline, std::string_view out) {
  std::size_t written = 0;
  for (;;) {
    // A complete line already buffered?
    const auto nl = stdout_buffer_.find('\n', stdout_scan_from_);
    if (nl != std::string::npos) {
      LineResult r{LineResult::Status::line, stdout_buffer_.substr(0, nl)};
      stdout_buffer_.erase(0, nl + 1);
      stdout_scan_from_ = 0;
      if (!r.text.empty() && r.text.back() == '\r') r.text.pop_back();
      return r;
    }
    stdout_scan_from_ = stdout_buffer_.size();
    if (stdout_buffer_.size() > line_limit_) return {LineResult::Status::too_long, {}};
    if (stdout_fd_ < 0) {
      LineResult r{LineResult::Status::closed, std::move(stdout_buffer_)};
      stdout_buffer_.clear();
      stdout_scan_from_ = 0;
      return r;
    }

    pollfd fds[3];
    nfds_t n = 0;
    const bool writing = stdin_fd_ >= 0 && written < out.size();
    if (writing) fds[n++] = {stdin_fd_, POLLOUT, 0};
    const nfds_t out_at = n;
    fds[n++] = {stdout_fd_, POLLIN, 0};
    const nfds_t err_at = n;
    if (stderr_fd_ >= 0) fds[n++] = {stderr_fd_, POLLIN, 0};

    const int wait_ms = millis_until(deadline);
    if (wait_ms == 0) return {LineResult::Status::timeout, {}};
    const int ready = ::poll(fds, n, wait_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      throw_errno("poll");
    }
    if (ready == 0) continue;  // the deadline check above ends the loop

    if (writing && fds[0].revents) {
      const ssize_t w = ::write(stdin_fd_, out.data() + written, out.size() - written);
      if (w > 0) {
        written += static_cast<std::size_t>(w);
      } else if (w < 0 && errno != EAGAIN && errno != EINTR) {
        close_fd(stdin_fd_);  // EPIPE: the child closed stdin or died; stdout EOF will tell
      }
    }
    if (fds[out_at].revents) read_available(stdout_fd_, true);
    if (stderr_fd_ >= 0 && fds[err_at].revents) read_available(stderr_fd_, false);
  }
}

LineResult ChildProcess::exchange(std::string_view line, std::chrono::milliseconds timeout) {
  std::string out;
  out.reserve(line.size() + 1);
  out.append(line);
  out.push_back('\n');
  return pump(Clock::now() + timeout, out);
}

LineResult ChildProcess::read_line(std::chrono::milliseconds timeout) {
  return pump(Clock::now() + timeout, {});
}

void ChildProcess::close_stdin() { close_fd(stdin_fd_); }

bool ChildProcess::drain(std::chrono::milliseconds timeout, std::string* out,
                         std::size_t out_limit) {
  const auto deadline = Clock::now() + timeout;
  auto move_stdout = [&] {
    if (out && out->size() < out_limit) {
      out->append(stdout_buffer_, 0, std::min(stdout_buffer_.size(), out_limit - out->size()));
    }
    stdout_buffer_.clear();
    stdout_scan_from_ = 0;
  };
  move_stdout();
  while (stdout_fd_ >= 0 || stderr_fd_ >= 0) {
    pollfd fds[2];
    nfds_t n = 0;
    if (stdout_fd_ >= 0) fds[n++] = {stdout_fd_, POLLIN, 0};
    if (stderr_fd_ >= 0) fds[n++] = {stderr_fd_, POLLIN, 0};
    const int wait_ms = millis_until(deadline);
    if (wait_ms == 0) return false;
    const int ready = ::poll(fds, n, wait_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      throw_errno("poll");
    }
    for (nfds_t i = 0; i < n; ++i) {
      if (!fds[i].revents) continue;
      if (fds[i].fd == stdout_fd_) {
        read_available(stdout_fd_, true);
        move_stdout();
      } else {
        read_available(stderr_fd_, false);
      }
    }
  }
  return true;
}

void ChildProcess::reap_blocking() {
  int st = 0;
  pid_t r;
  do {
    r = ::waitpid(pid_, &st, 0);
  } while (r < 0 && errno == EINTR);
  status_ = r == pid_ ? st : 0;
}

void ChildProcess::drain_stderr_briefly() {
  // After the group is dead the pipe reaches EOF at once; the bound only
  // protects against a descendant that escaped the group and holds it open.
  const auto deadline = Clock::now() + std::chrono::milliseconds(200);
  while (stderr_fd_ >= 0) {
    pollfd p{stderr_fd_, POLLIN, 0};
    const int wait_ms = millis_until(deadline);
    if (wait_ms == 0) break;
    const int ready = ::poll(&p, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;
    read_available(stderr_fd_, false);
  }
}

int ChildProcess::kill() {
  if (status_) return *status_;
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);  // in case the child had not yet run setpgid
  reap_blocking();
  drain_stderr_briefly();
  return *status_;
}

int ChildProcess::finish(std::chrono::milliseconds grace) {
  if (status_) return *status_;
  const auto deadline = Clock::now() + grace;
  for (;;) {
    int st = 0;
    const pid_t r = ::waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
      status_ = st;
      ::kill(-pid_, SIGKILL);  // descendants left in the group
      drain_stderr_briefly();
      return st;
    }
    if (r < 0 && errno != EINTR) {
      status_ = 0;
      return 0;
    }
    if (Clock::now() >= deadline) return kill();
    // Keep reading while waiting, so a child blocked on a full pipe can finish.
    pollfd fds[2];
    nfds_t n = 0;
    if (stdout_fd_ >= 0) fds[n++] = {stdout_fd_, POLLIN, 0};
    if (stderr_fd_ >= 0) fds[n++] = {stderr_fd_, POLLIN, 0};
    const int ready = ::poll(fds, n, std::min(millis_until(deadline), 10));
    if (ready > 0) {
      for (nfds_t i = 0; i < n; ++i) {
        if (!fds[i].revents) continue;
        if (fds[i].fd == stdout_fd_) {
          read_available(stdout_fd_, true);
          if (stdout_buffer_.size() > line_limit_) stdout_buffer_.clear();
        } else {
          read_available(stderr_fd_, false);
        }
      }
    }
  }
}

}  // namespace attn::grader

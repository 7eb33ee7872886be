// Words for how a child process ended.
#include "sandbox/exit_status.hpp"

#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include <cstdio>

namespace attn::grader {

std::string describe_exit(int wait_status) {
  if (WIFEXITED(wait_status)) {
    const int code = WEXITSTATUS(wait_status);
    std::string text = "exited with status " + std::to_string(code);
    // A process in the sandbox that dies of a signal reaches us as bubblewrap's
    // exit status 128 + signal (as a shell reports it).
    const int sig = code - 128;
    if (sig == SIGSEGV || sig == SIGABRT || sig == SIGBUS || sig == SIGFPE || sig == SIGILL ||
        sig == SIGKILL || sig == SIGXCPU || sig == SIGXFSZ) {
      const char* abbrev = sigabbrev_np(sig);
      text += " (128 + " + std::to_string(sig) + ": most likely a crash with signal " +
              std::to_string(sig) + (abbrev ? std::string(", SIG") + abbrev : std::string()) +
              ", as the sandbox reports it)";
    }
    return text;
  }
  if (WIFSIGNALED(wait_status)) {
    const int sig = WTERMSIG(wait_status);
    const char* abbrev = sigabbrev_np(sig);
    std::string name = abbrev ? std::string("SIG") + abbrev : "unknown signal";
    std::string text = "crashed with signal " + std::to_string(sig) + " (" + name;
    if (sig == SIGXCPU) text += ": CPU time limit exceeded";
    if (sig == SIGXFSZ) text += ": file size limit exceeded";
    if (sig == SIGKILL) text += ": killed";
    return text + ")";
  }
  return "ended with wait status " + std::to_string(wait_status);
}

std::string describe_duration(std::chrono::milliseconds d) {
  const auto ms = d.count();
  if (ms < 1000) return std::to_string(ms) + " ms";
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g s", static_cast<double>(ms) / 1000.0);
  return buf;
}

}  // namespace attn::grader

// Words for how a child process ended.
#include "attn/grader/exit_status.hpp"

#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include <cstdio>

namespace attn::grader {

std::string describe_exit(int wait_status) {
  if (WIFEXITED(wait_status)) {
    return "exited with status " + std::to_string(WEXITSTATUS(wait_status));
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

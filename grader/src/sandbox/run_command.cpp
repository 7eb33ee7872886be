// run_command: a program run to completion with a timeout.
#include "sandbox/run_command.hpp"

#include <sys/wait.h>

#include "sandbox/child_process.hpp"

namespace attn::grader {

bool CommandResult::succeeded() const {
  return started && !timed_out && WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0;
}

CommandResult run_command(const Command& command, std::chrono::milliseconds timeout,
                          std::size_t output_limit) {
  CommandResult result;
  try {
    ChildProcess child(command, output_limit);
    result.started = true;
    child.close_stdin();
    const bool closed = child.drain(timeout, &result.output, output_limit);
    if (!closed) {
      result.timed_out = true;
      result.wait_status = child.kill();
    } else {
      // Both pipes closed: the program is exiting (or detached its output).
      result.wait_status = child.finish(timeout);
    }
    if (!command.merge_stderr) result.output += child.stderr_tail().text();
  } catch (const SpawnError& e) {
    result.started = false;
    result.output = e.what();
  }
  return result;
}

}  // namespace attn::grader

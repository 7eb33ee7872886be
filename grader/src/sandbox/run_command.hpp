#pragma once
// run_command: run a program to completion (a compiler, an interpreter
// probe) with a timeout, collecting its output.

#include <chrono>
#include <cstddef>
#include <string>

#include "sandbox/command.hpp"

namespace attn::grader {

struct CommandResult {
  bool started = false;    ///< false: the program could not be executed (see output)
  bool timed_out = false;  ///< killed (with its process group) at the timeout
  int wait_status = 0;     ///< from waitpid, when started
  /// stdout then stderr as the program wrote them (one pipe when the
  /// command has merge_stderr), at most output_limit bytes from the start;
  /// or, when !started, why it could not be started.
  std::string output;

  /// Exited by itself with status 0.
  bool succeeded() const;
};

/// Runs `command` with stdin closed, waits at most `timeout`, then kills its
/// process group. Never throws for a failing program; throws std::system_error
/// only if pipes or fork fail.
CommandResult run_command(const Command& command, std::chrono::milliseconds timeout,
                          std::size_t output_limit = 64 * 1024);

}  // namespace attn::grader

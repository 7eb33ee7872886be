#pragma once
// Words for how a child process ended, as a report shows them.

#include <chrono>
#include <string>

namespace attn::grader {

/// For a status from waitpid: "exited with status 3", "crashed with signal 11 (SIGSEGV)",
/// "was killed by signal 24 (SIGXCPU: CPU time limit exceeded)".
std::string describe_exit(int wait_status);

/// "10 s", "1.5 s", "250 ms".
std::string describe_duration(std::chrono::milliseconds d);

}  // namespace attn::grader

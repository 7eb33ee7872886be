// ChildProcess and run_command on small shell programs: lines, timeouts,
// crashes, exit statuses, the stderr tail, process groups, limits.
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include <catch2/catch.hpp>

#include "sandbox/child_process.hpp"
#include "sandbox/exit_status.hpp"
#include "sandbox/run_command.hpp"

using namespace attn::grader;
using namespace std::chrono_literals;
using Status = LineResult::Status;

namespace {

/// True once `pid` no longer runs: gone, or a zombie waiting for whoever
/// reaps orphans (not every container's init does so promptly).
bool stopped(pid_t pid) {
  if (::kill(pid, 0) != 0) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_text, comm, state;
  stat >> pid_text >> comm >> state;
  return state == "Z" || state == "X";
}

Command sh(const std::string& script) {
  Command c;
  c.argv = {"/bin/sh", "-c", script};
  return c;
}

}  // namespace

TEST_CASE("exchange writes a line and reads the reply line", "[process]") {
  ChildProcess p(sh("while read -r x; do echo \"got:$x\"; done"));
  const LineResult a = p.exchange("one", 5s);
  REQUIRE(a.status == Status::line);
  CHECK(a.text == "got:one");
  const LineResult b = p.exchange("two", 5s);
  REQUIRE(b.status == Status::line);
  CHECK(b.text == "got:two");
  p.close_stdin();
  CHECK(describe_exit(p.finish(5s)) == "exited with status 0");
}

TEST_CASE("a large request and a large reply pass without deadlock", "[process]") {
  // The child echoes while the grader is still writing: both pipes fill up.
  ChildProcess p(sh("cat"));
  const std::string big(3 << 20, 'x');
  const LineResult r = p.exchange(big, 20s);
  REQUIRE(r.status == Status::line);
  CHECK(r.text.size() == big.size());
}

TEST_CASE("a child that never answers times out and is killed", "[process]") {
  ChildProcess p(sh("sleep 30"));
  const auto t0 = std::chrono::steady_clock::now();
  const LineResult r = p.exchange("hello", 300ms);
  const auto took = std::chrono::steady_clock::now() - t0;
  CHECK(r.status == Status::timeout);
  CHECK(took >= 300ms);
  CHECK(took < 5s);
  const int st = p.kill();
  CHECK(WIFSIGNALED(st));
  CHECK(WTERMSIG(st) == SIGKILL);
}

TEST_CASE("a crash is seen as closed stdout and a signal", "[process]") {
  ChildProcess p(sh("read -r x; echo dying >&2; kill -SEGV $$"));
  const LineResult r = p.exchange("go", 5s);
  CHECK(r.status == Status::closed);
  CHECK(describe_exit(p.finish(2s)) == "crashed with signal 11 (SIGSEGV)");
  CHECK_THAT(p.stderr_tail().text(), Catch::Contains("dying"));
}

TEST_CASE("an exit status is reported", "[process]") {
  ChildProcess p(sh("exit 3"));
  const LineResult r = p.read_line(5s);
  CHECK(r.status == Status::closed);
  CHECK(describe_exit(p.finish(2s)) == "exited with status 3");
}

TEST_CASE("only the last bytes of stderr are kept", "[process]") {
  ChildProcess p(sh("i=0; while [ $i -lt 2000 ]; do echo \"line $i\" >&2; i=$((i+1)); done; "
                    "echo THE-END >&2; echo done"),
                 1024);
  const LineResult r = p.read_line(10s);
  REQUIRE(r.status == Status::line);
  p.finish(5s);
  CHECK(p.stderr_tail().text().size() == 1024);
  CHECK(p.stderr_tail().truncated());
  CHECK_THAT(p.stderr_tail().text(), Catch::EndsWith("THE-END\n"));
}

TEST_CASE("killing reaches the whole process group", "[process]") {
  auto p = std::make_unique<ChildProcess>(sh("sleep 60 & echo $!; wait"));
  const LineResult r = p->read_line(5s);
  REQUIRE(r.status == Status::line);
  const pid_t grandchild = std::stoi(r.text);
  REQUIRE_FALSE(stopped(grandchild));
  p->kill();
  // The grandchild was reparented to init; SIGKILL reached it through the group.
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone = stopped(grandchild);
    if (!gone) std::this_thread::sleep_for(10ms);
  }
  CHECK(gone);
}

TEST_CASE("a program that cannot be executed is a SpawnError", "[process]") {
  Command c;
  c.argv = {"/nonexistent/program"};
  CHECK_THROWS_WITH(ChildProcess(c), Catch::Contains("/nonexistent/program") &&
                                         Catch::Contains("No such file"));
}

TEST_CASE("the child runs under the limits and in its own process group", "[process]") {
  Command c = sh("ulimit -c; ulimit -v; ulimit -t; ulimit -f; cut -d' ' -f5 /proc/$$/stat; echo $$");
  c.limits.address_space_bytes = std::uint64_t{2} << 30;
  c.limits.cpu_seconds = 77;
  c.limits.file_size_bytes = std::uint64_t{1} << 20;
  const CommandResult r = run_command(c, 10s);
  REQUIRE(r.succeeded());
  std::istringstream out(r.output);
  std::string core, vmem, cpu, fsize, pgid, pid;
  out >> core >> vmem >> cpu >> fsize >> pgid >> pid;
  CHECK(core == "0");
  CHECK(vmem == std::to_string((std::uint64_t{2} << 30) / 1024));
  CHECK(cpu == "77");
  CHECK(fsize == std::to_string((std::uint64_t{1} << 20) / 512));
  CHECK(pgid == pid);
}

TEST_CASE("run_command collects output, status and timeouts", "[process]") {
  Command ok = sh("echo out; echo err >&2; exit 4");
  ok.merge_stderr = true;
  const CommandResult r = run_command(ok, 5s);
  CHECK(r.started);
  CHECK_FALSE(r.timed_out);
  CHECK_FALSE(r.succeeded());
  CHECK(WEXITSTATUS(r.wait_status) == 4);
  CHECK(r.output == "out\nerr\n");

  const auto t0 = std::chrono::steady_clock::now();
  const CommandResult slow = run_command(sh("sleep 30"), 300ms);
  CHECK(slow.timed_out);
  CHECK(std::chrono::steady_clock::now() - t0 < 5s);

  Command missing;
  missing.argv = {"/nonexistent/cc"};
  const CommandResult m = run_command(missing, 5s);
  CHECK_FALSE(m.started);
  CHECK_THAT(m.output, Catch::Contains("/nonexistent/cc"));
}

TEST_CASE("describe_exit and describe_duration", "[process]") {
  CHECK(describe_exit(3 << 8) == "exited with status 3");
  CHECK(describe_exit(SIGSEGV) == "crashed with signal 11 (SIGSEGV)");
  CHECK(describe_exit(SIGABRT) == "crashed with signal 6 (SIGABRT)");
  CHECK_THAT(describe_exit(SIGXCPU), Catch::Contains("CPU time limit"));
  // A crash inside the sandbox arrives as bubblewrap's exit status 128 + signal.
  CHECK(describe_exit(139 << 8) ==
        "exited with status 139 (128 + 11: most likely a crash with signal 11, SIGSEGV, as the "
        "sandbox reports it)");
  CHECK(describe_exit(130 << 8) == "exited with status 130");  // 128 + SIGINT: not a crash
  CHECK(describe_duration(10s) == "10 s");
  CHECK(describe_duration(1500ms) == "1.5 s");
  CHECK(describe_duration(250ms) == "250 ms");
}

#pragma once
// ProcessSubject: a submission running in its own process, answering Cases
// over the line protocol (grader/PROTOCOL.md).
//
// One process answers case after case. A timeout, crash or malformed reply
// makes that case's Outcome a fault. After a timeout, a crash, or a reply the
// grader cannot pair with its request (not JSON, a wrong "id": the channel may
// be out of step) the process is killed (with its process group) and a fresh
// one is started for the next case, so one crash does not fail every later
// case. A well-paired reply whose answer is unusable (a wrong shape, None,
// a "fault" reply) is a fault too, but the process lives on. Restarts and
// timeouts are capped per run (begin_run() starts one: the grader calls it
// before each property); past a cap the remaining cases of the run are not
// run (not_run() counts them, stop_reason() says why).

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "sandbox/child_process.hpp"
#include "sandbox/command.hpp"
#include "protocol/hello.hpp"
#include "submission/declared_precision.hpp"
#include "attn/prop/subject.hpp"

namespace attn::grader {

/// The most bytes a reply to one case may take, from the answer's size: a
/// number never needs more than kReplyBytesPerNumber bytes (a shortest
/// round-trip double, its separator, or "NaN" as a string), and
/// kReplySlackBytes cover the structure and an error message. A longer
/// reply is a fault read no further, so one reply cannot make the grader
/// hold more memory than its answer could need (PROTOCOL.md, "Replies").
inline constexpr std::size_t kReplyBytesPerNumber = 40;
inline constexpr std::size_t kReplySlackBytes = std::size_t{64} << 10;
std::size_t reply_limit_bytes(const attn::prop::Case& c);

struct SubjectOptions {
  /// Per case: writing the request and reading the reply.
  std::chrono::milliseconds call_timeout{std::chrono::seconds(10)};
  /// From spawning to the hello line (loading Python and NumPy, static initialisers).
  std::chrono::milliseconds startup_timeout{std::chrono::seconds(30)};
  /// Processes started after the first one, per run (begin_run); past this
  /// every case of the run is a fault at once, without running.
  int max_restarts = 50;
  /// Timeouts tolerated per run (begin_run); past this every case of the run
  /// is a fault at once (a submission that hangs would otherwise cost
  /// call_timeout for every shrinking step).
  int max_timeouts = 3;
  /// Bytes of the submission's stderr kept for the report.
  std::size_t stderr_tail_bytes = 4096;
  /// Bytes of stderr quoted in a fault message.
  std::size_t stderr_in_fault_bytes = 600;
  /// The precision asked for on the command line (--precision, --accumulate);
  /// the hello fills what is not given (declared_precision.hpp).
  PrecisionRequest precision;
};

class ProcessSubject : public attn::prop::Subject {
 public:
  /// `display_name` names the submission in reports ("solutions/F3/attention.py").
  ProcessSubject(std::string display_name, Command command, SubjectOptions options = {});
  ~ProcessSubject() override;

  /// Starts the first process and reads its hello. Returns nullopt when the
  /// submission is ready, otherwise why it cannot be graded, as words that
  /// follow "The submission ": "could not be started: ...", "exited with
  /// status 3 before saying hello", "failed to load: SyntaxError: ...",
  /// "broke the protocol at start: ...". Does not throw.
  std::optional<std::string> start();

  /// The hello of the most recent process (valid after a successful start()).
  const Hello& hello() const { return hello_; }
  /// When start() failed because the hello said the file defines no
  /// function to call (Hello::missing_entry: a Python file without the
  /// exercise's names, or without the one --entry named): the hello's error
  /// message (naming the file's own functions); else nullopt.
  const std::optional<std::string>& missing_entry() const { return missing_entry_; }

  std::string name() const override { return display_name_; }
  /// The chosen precision (command line, else hello, else float64); before
  /// start(): the command line's, else float64.
  attn::prop::Precision precision() const override { return declared_.precision; }
  /// The chosen precision with where it came from, for the report.
  const DeclaredPrecision& declared_precision() const { return declared_; }
  /// The operations the hello listed (before start(): attention only).
  bool supports(attn::prop::Operation op) const override;
  /// False when the hello said "weights": false (a kernel returning O only).
  bool returns_weights() const override { return hello_.weights; }
  /// Sends c and waits for the reply. Never throws: transport trouble is a fault.
  attn::prop::Outcome run(const attn::prop::Case& c) override;

  /// Closes the submission's stdin and gives it a moment to exit; kills it after.
  void stop();

  /// Starts a new run (one property): the restart and timeout caps count
  /// from here again. The totals below are kept.
  void begin_run();

  /// Totals since construction.
  int restarts() const { return restarts_; }
  int timeouts() const { return timeouts_; }
  int faults() const { return faults_; }
  /// Cases answered with a fault without running because a cap was reached (total).
  int not_run() const { return not_run_; }
  /// Why the current run stopped running cases, as a clause ("the submission
  /// was restarted 50 times after faults in this property (the limit)");
  /// empty while no cap was reached in this run.
  const std::string& stop_reason() const { return stop_reason_; }
  std::int64_t calls() const { return next_id_ - 1; }
  /// The last bytes the current (or last) process wrote to stderr.
  std::string stderr_tail() const;

 private:
  std::optional<std::string> spawn();
  attn::prop::Outcome fault(std::string what);

  std::string display_name_;
  Command command_;
  SubjectOptions options_;
  std::unique_ptr<ChildProcess> child_;
  Hello hello_;
  std::optional<std::string> missing_entry_;
  DeclaredPrecision declared_;
  bool started_once_ = false;
  int restarts_ = 0;
  int timeouts_ = 0;
  int faults_ = 0;
  int not_run_ = 0;
  int run_restarts_ = 0;  ///< in the current run
  int run_timeouts_ = 0;  ///< in the current run
  std::string stop_reason_;
  std::int64_t next_id_ = 1;
  std::string last_stderr_;
};

}  // namespace attn::grader

// ProcessSubject: a submission process answering Cases over the protocol.
#include "submission/process_subject.hpp"
#include "protocol/untrusted_text.hpp"

#include <algorithm>
#include <sstream>
#include <vector>

#include "sandbox/exit_status.hpp"
#include "protocol/operation_codec.hpp"
#include "protocol/protocol_error.hpp"
#include "protocol/reply.hpp"
#include "protocol/request.hpp"

namespace attn::grader {
namespace {

using attn::prop::Outcome;

/// The end of a submission's stderr for a fault message: the last lines
/// (at most max_lines and about max_bytes), without the harness's own stack
/// frames and faulthandler's module list, each line prefixed with "  | ".
std::string stderr_excerpt(const std::string& text, std::size_t max_bytes,
                           std::size_t max_lines = 8) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("attnlab_harness.py") != std::string::npos) continue;
    if (line.rfind("Extension modules:", 0) == 0) continue;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    lines.push_back(std::move(line));
  }
  std::string out;
  std::size_t taken = 0, bytes = 0;
  for (auto it = lines.rbegin(); it != lines.rend() && taken < max_lines; ++it, ++taken) {
    std::string shown = untrusted_text(*it, 200);
    if (bytes + shown.size() > max_bytes && taken > 0) break;
    bytes += shown.size();
    out.insert(0, "  | " + shown + "\n");
  }
  return out;
}

/// "once", "3 times".
std::string times(int n) { return n == 1 ? std::string("once") : std::to_string(n) + " times"; }

}  // namespace

ProcessSubject::ProcessSubject(std::string display_name, Command command, SubjectOptions options)
    : display_name_(std::move(display_name)),
      command_(std::move(command)),
      options_(options) {
  hello_.ops = {"attention"};
  try {
    declared_ = choose_precision(options_.precision, hello_);
  } catch (const std::invalid_argument&) {
    // A pair that does not fit is refused by the command line's checks first;
    // start() reports it if it comes through here.
  }
}

ProcessSubject::~ProcessSubject() { stop(); }

bool ProcessSubject::supports(attn::prop::Operation op) const {
  const std::string name = attn::prop::operation_name(op);
  return std::find(hello_.ops.begin(), hello_.ops.end(), name) != hello_.ops.end();
}

std::size_t reply_limit_bytes(const attn::prop::Case& c) {
  return kReplyBytesPerNumber * operation_codec(c.op).answer_numbers(c) + kReplySlackBytes;
}

std::string ProcessSubject::stderr_tail() const {
  return untrusted_text(child_ ? child_->stderr_tail().whole_lines() : last_stderr_,
                        options_.stderr_tail_bytes, true, Keep::tail);
}

std::optional<std::string> ProcessSubject::spawn() {
  if (child_) {
    child_->kill();
    last_stderr_ = child_->stderr_tail().whole_lines();
    child_.reset();
  }
  try {
    child_ = std::make_unique<ChildProcess>(command_, options_.stderr_tail_bytes);
  } catch (const std::exception& e) {
    return "could not be started: " + std::string(e.what());
  }
  child_->set_line_limit(std::size_t{1} << 20);  // a hello is a few hundred bytes
  const LineResult first = child_->read_line(options_.startup_timeout);
  std::string why;
  switch (first.status) {
    case LineResult::Status::line:
      try {
        Hello h = parse_hello(first.text);
        if (!h.ok) {
          why = "failed to load: " + h.error_type + ": " + h.error_message;
          if (h.missing_entry) missing_entry_ = h.error_message;
        } else {
          try {
            declared_ = choose_precision(options_.precision, h);
            hello_ = std::move(h);
            return std::nullopt;
          } catch (const std::invalid_argument& e) {
            why = std::string("broke the protocol at start: hello: ") + e.what();
          }
        }
      } catch (const ProtocolError& e) {
        why = std::string("broke the protocol at start: ") + e.what();
      }
      break;
    case LineResult::Status::timeout:
      // For a Python or C++ file the harness says hello once the file is
      // loaded: no hello is a file that did not finish loading (an endless
      // loop or long work at import), which is how a student reads it.
      why = "did not finish loading (importing the file and saying hello to the grader) within " +
            describe_duration(options_.startup_timeout);
      break;
    case LineResult::Status::closed:
      why = describe_exit(child_->finish(std::chrono::seconds(2))) + " before saying hello";
      break;
    case LineResult::Status::too_long:
      why = "sent a first line longer than the protocol allows";
      break;
  }
  child_->kill();
  last_stderr_ = child_->stderr_tail().text();
  child_.reset();
  return why;
}

std::optional<std::string> ProcessSubject::start() {
  started_once_ = true;
  return spawn();
}

Outcome ProcessSubject::fault(std::string what) {
  ++faults_;
  std::string tail;
  if (child_) {
    child_->kill();
    last_stderr_ = child_->stderr_tail().whole_lines();
    tail = last_stderr_;
    child_.reset();  // the next case starts a fresh process
  }
  if (const std::string excerpt = stderr_excerpt(tail, options_.stderr_in_fault_bytes);
      !excerpt.empty()) {
    what += "; its stderr ends with:\n" + excerpt;
    what.pop_back();  // the report adds the final newline
  }
  return Outcome::make_fault(std::move(what));
}

void ProcessSubject::begin_run() {
  run_restarts_ = 0;
  run_timeouts_ = 0;
  stop_reason_.clear();
}

Outcome ProcessSubject::run(const attn::prop::Case& c) {
  if (run_timeouts_ >= options_.max_timeouts) {
    ++faults_;
    ++not_run_;
    stop_reason_ = "the submission timed out " + times(run_timeouts_) +
                   " in this property (the limit)";
    return Outcome::make_fault("not run: " + stop_reason_ + ", so its later cases are skipped");
  }
  if (!child_) {
    if (started_once_) {
      if (run_restarts_ >= options_.max_restarts) {
        ++faults_;
        ++not_run_;
        stop_reason_ = "the submission was restarted " + times(run_restarts_) +
                       " after faults in this property (the limit)";
        return Outcome::make_fault("not run: " + stop_reason_ + ", so its later cases are skipped");
      }
      ++restarts_;
      ++run_restarts_;
    }
    started_once_ = true;
    if (auto why = spawn()) {
      ++faults_;
      std::string text = "the restarted submission " + *why;
      if (const std::string excerpt =
              stderr_excerpt(last_stderr_, options_.stderr_in_fault_bytes);
          !excerpt.empty()) {
        text += "; its stderr ends with:\n" + excerpt;
        text.pop_back();
      }
      return Outcome::make_fault(std::move(text));
    }
  }

  const std::int64_t id = next_id_++;
  std::string request;
  try {
    request = request_line(c, id);
  } catch (const std::exception& e) {
    ++faults_;
    return Outcome::make_fault(std::string("grader: cannot encode the case: ") + e.what());
  }

  LineResult r;
  try {
    child_->set_line_limit(reply_limit_bytes(c));
    r = child_->exchange(request, options_.call_timeout);
  } catch (const std::exception& e) {
    return fault(std::string("grader: I/O error talking to the submission: ") + e.what());
  }
  switch (r.status) {
    case LineResult::Status::line: {
      bool paired = false;
      Outcome o = parse_reply(r.text, id, c, &paired, hello_.weights);
      if (o.kind != Outcome::Kind::fault) return o;
      // The reply to this request, with an answer that cannot be used (a
      // wrong shape, None): the process is fine and answers the next case.
      // Anything else may have put the channel out of step: start afresh.
      if (paired) {
        ++faults_;
        return o;
      }
      return fault(std::move(o.message));
    }
    case LineResult::Status::timeout:
      ++timeouts_;
      ++run_timeouts_;
      return fault("timed out after " + describe_duration(options_.call_timeout));
    case LineResult::Status::closed: {
      const int status = child_->finish(std::chrono::seconds(2));
      return fault(describe_exit(status) + " before replying");
    }
    case LineResult::Status::too_long:
      // Said in the case's terms first: the bytes alone (65936) told nothing.
      return fault("the answer is far larger than the " + operation_codec(c.op).answer_text(c) +
                   " this case asks for: its reply is longer than " +
                   std::to_string(child_->line_limit()) +
                   " bytes, the most an answer to this case can take");
  }
  return fault("grader: unknown read status");
}

void ProcessSubject::stop() {
  if (!child_) return;
  child_->close_stdin();
  child_->finish(std::chrono::seconds(1));
  last_stderr_ = child_->stderr_tail().text();
  child_.reset();
}

}  // namespace attn::grader

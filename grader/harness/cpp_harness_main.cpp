// attnlab harness for C++ submissions (grader/PROTOCOL.md,
// attnlab-protocol/1): main(), the protocol loop and the channel set-up,
// shared by every exercise. Compiled once; each exercise's harness library
// adds its cpp_harness_fN.cpp. `attnlab grade x.cpp` compiles only the
// submission and links it with that library.
//
// Before any code of the submission runs (its static initialisers included),
// a constructor with the earliest user priority moves the protocol channel
// to private descriptors: fd 0 then reads /dev/null and fd 1 (std::cout,
// printf) goes to stderr, so the submission's prints cannot reach the grader
// as replies.

#include <algorithm>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

#include "protocol/protocol_version.hpp"
#include "cpp_harness.hpp"

namespace attn::harness {

std::string demangle(const char* mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(mangled, nullptr, nullptr, &status),
                                              std::free);
  return status == 0 && name ? std::string(name.get()) : std::string(mangled);
}

std::string modified_input_fault(const std::string& name) {
  return "the function modified its input " + name + " in place; the caller's " + name +
         " must stay as it was given (it is passed by const reference: work on a copy, never "
         "write to it through const_cast)";
}

Eigen::Index declared_cols(const nlohmann::json& request, const char* name) {
  const auto shapes = request.find("shapes");
  if (shapes == request.end() || !shapes->is_object() || !shapes->contains(name)) return 0;
  return (*shapes)[name].at(1).get<Eigen::Index>();
}

}  // namespace attn::harness

namespace {

int proto_in = -1;
int proto_out = -1;

__attribute__((constructor(101))) void claim_protocol_channel() {
  proto_in = fcntl(0, F_DUPFD_CLOEXEC, 3);
  proto_out = fcntl(1, F_DUPFD_CLOEXEC, 3);
  const int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null >= 0) {
    dup2(null, 0);
    close(null);
  }
  dup2(2, 1);
}

void send(const nlohmann::json& message) {
  std::string line = message.dump();
  line.push_back('\n');
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = write(proto_out, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) std::_Exit(3);  // the grader is gone
    done += static_cast<std::size_t>(n);
  }
}

/// Reads one line from the protocol input; false at EOF.
bool receive(std::string& line) {
  static std::string buffer;
  for (;;) {
    const auto nl = buffer.find('\n');
    if (nl != std::string::npos) {
      line.assign(buffer, 0, nl);
      buffer.erase(0, nl + 1);
      return true;
    }
    char chunk[65536];
    const ssize_t n = read(proto_in, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buffer.append(chunk, static_cast<std::size_t>(n));
  }
}

}  // namespace

int main(int argc, char** argv) {
  using attn::harness::exercise;
  if (proto_in < 0 || proto_out < 0) return 3;
  nlohmann::json hello = {{"v", attn::grader::protocol_version},
                                {"hello", attn::grader::protocol_name},
                                {"ok", true},
                                {"language", "c++"},
                                {"runtime", std::string("g++ ") + __VERSION__},
                                {"exercise", exercise.id},
                                {"entry", exercise.entry},
                                {"ops", exercise.ops}};
  // --probe-weights (attnlab check): a kernel that leaves A empty returns O alone.
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--probe-weights" && exercise.probe_weights) {
      attn::harness::returns_weights = exercise.probe_weights();
      hello["weights"] = attn::harness::returns_weights;
    }
  send(hello);

  std::string line;
  while (receive(line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json reply;
    nlohmann::json id = nullptr;
    try {
      const nlohmann::json request = nlohmann::json::parse(line);
      if (request.is_object() && request.contains("id")) id = request["id"];
      if (!request.is_object() || request.value("v", 0) != attn::grader::protocol_version) {
        throw std::runtime_error("not a version 1 request");
      }
      const std::string op = request.value("op", std::string());
      if (std::find(exercise.ops.begin(), exercise.ops.end(), op) == exercise.ops.end()) {
        throw std::runtime_error("unsupported op " + request.value("op", std::string("(none)")));
      }
      reply = attn::harness::answer(request);
    } catch (const std::exception& e) {
      // Only decoding can throw here: call_submission catches the submission's exceptions.
      reply = {{"ok", false}, {"fault", std::string("harness: bad request: ") + e.what()}};
    }
    reply["v"] = attn::grader::protocol_version;
    reply["id"] = id;
    send(reply);
  }
  return 0;
}

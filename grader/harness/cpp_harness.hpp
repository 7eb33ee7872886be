#pragma once
// The parts of the C++ harness (grader/PROTOCOL.md, attnlab-protocol/1)
// shared by every exercise. cpp_harness_main.cpp holds main(), the protocol
// loop and the channel set-up; each cpp_harness_fN.cpp defines `exercise`
// and `answer` for one exercise's interface header. A harness static
// library (attnlab_cpp_harness_fN) is both; a submission is linked with it.

#include <cxxabi.h>

#include <exception>
#include <string>
#include <typeinfo>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

namespace attn::harness {

/// What the hello says about the exercise this harness serves.
struct ExerciseInfo {
  const char* id;     ///< "F1"
  const char* entry;  ///< "f1::softmax_rows"
  std::vector<std::string> ops;  ///< the protocol ops it answers: {"softmax_rows"}
};

/// Defined by the exercise's cpp_harness_fN.cpp.
extern const ExerciseInfo exercise;

/// Defined by the exercise's cpp_harness_fN.cpp: decodes the request's
/// inputs (throwing std::exception for a malformed request), calls the
/// submission through call_submission, and returns the reply's members
/// ("ok" and the answer, or "ok" and "error").
nlohmann::json answer(const nlohmann::json& request);

/// The readable name of a mangled type name.
std::string demangle(const char* mangled);

/// The column count the request declares for matrix `name` (0 if absent),
/// so that a matrix with no rows keeps its shape.
Eigen::Index declared_cols(const nlohmann::json& request, const char* name);

/// Runs `call` (the submission), returning {"ok": true, ...its members} or,
/// if it throws, {"ok": false, "error": {type, message}}.
template <class Call>
nlohmann::json call_submission(Call&& call) {
  nlohmann::json reply;
  try {
    reply = call();
    reply["ok"] = true;
  } catch (const std::exception& e) {
    reply = {{"ok", false}, {"error", {{"type", demangle(typeid(e).name())}, {"message", e.what()}}}};
  } catch (...) {
    const std::type_info* t = abi::__cxa_current_exception_type();
    reply = {{"ok", false},
             {"error",
              {{"type", t ? demangle(t->name()) : std::string("unknown")},
               {"message", "a non-std::exception was thrown"}}}};
  }
  return reply;
}

}  // namespace attn::harness

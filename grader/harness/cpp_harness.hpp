#pragma once
// The parts of the C++ harness (grader/PROTOCOL.md, attnlab-protocol/1)
// shared by every exercise. cpp_harness_main.cpp holds main(), the protocol
// loop and the channel set-up; each cpp_harness_fN.cpp defines `exercise`
// and `answer` for one exercise's interface header. A harness static
// library (attnlab_cpp_harness_fN) is both; a submission is linked with it.

#include <cxxabi.h>

#include <cstring>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

namespace attn::harness {

/// What the hello says about the exercise this harness serves.
struct ExerciseInfo {
  const char* id;     ///< "F1"
  const char* entry;  ///< "f1::softmax_rows"
  std::vector<std::string> ops;  ///< the protocol ops it answers: {"softmax_rows"}
  /// For an attention kernel: calls it once on Q = K = [[0]], V = [[1]], no
  /// mask, and says whether it returned weights (A not empty). Run by main()
  /// only when the grader passes --probe-weights (`attnlab check`: a kernel
  /// may return O alone by leaving A empty; a graded exercise must return A).
  bool (*probe_weights)() = nullptr;
};

/// Whether the attention answers carry A: false once main() has probed a
/// kernel that leaves A empty (the hello then says "weights": false and the
/// properties about A are skipped, grader/PROTOCOL.md).
inline bool returns_weights = true;

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

/// The fault of a call that changed the input `name` in place (through
/// const_cast: the interface passes it by const reference). The Python
/// harness's call_kernel (attnlab_harness.py) says the same words up to the
/// advice, so a report reads alike in both languages.
std::string modified_input_fault(const std::string& name);

/// Bit-exact copies of the inputs a submission is given, taken before the
/// call and compared after it (modified_input_fault names the first that
/// changed). Inputs: Eigen matrices (Matrix, Mask) and std::optional of one
/// (M1's heads are kept matrix by matrix).
class KeptInputs {
 public:
  /// Keeps a copy of `value`, which must outlive this object.
  template <class T>
  KeptInputs& keep(std::string name, const T& value) {
    inputs_.push_back({std::move(name), [copy = value, &value] { return same_bits(copy, value); }});
    return *this;
  }
  /// The name of the first input that differs from its copy; empty: none.
  std::string changed() const {
    for (const auto& [name, same] : inputs_)
      if (!same()) return name;
    return {};
  }

 private:
  template <class Derived>
  static bool same_bits(const Eigen::DenseBase<Derived>& a, const Eigen::DenseBase<Derived>& b) {
    using Scalar = typename Derived::Scalar;
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           (a.size() == 0 ||
            std::memcmp(a.derived().data(), b.derived().data(),
                        static_cast<std::size_t>(a.size()) * sizeof(Scalar)) == 0);
  }
  template <class T>
  static bool same_bits(const std::optional<T>& a, const std::optional<T>& b) {
    return a.has_value() == b.has_value() && (!a || same_bits(*a, *b));
  }
  std::vector<std::pair<std::string, std::function<bool()>>> inputs_;
};

/// call_submission(call), then a fault ({"ok": false, "fault": ...}) if the
/// call changed one of `kept` in place, whether it answered or threw: the
/// caller's inputs must stay as given (grader/PROTOCOL.md, "fault").
template <class Call>
nlohmann::json call_keeping(const KeptInputs& kept, Call&& call) {
  nlohmann::json reply = call_submission(std::forward<Call>(call));
  if (const std::string name = kept.changed(); !name.empty())
    return {{"ok", false}, {"fault", modified_input_fault(name)}};
  return reply;
}

}  // namespace attn::harness

// Exercises as graded: a spec of the registry (registry.hpp) with its
// properties and points table.
#include "exercises/exercise.hpp"

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attn/grader/paths.hpp"
#include "exercises/registry.hpp"
#include "sandbox/escaped_name.hpp"
#include "attn/prop/catalog.hpp"

namespace attn::grader {

using attn::prop::Operation;

double Exercise::max_points() const {
  double total = 0;
  auto add = [&](const std::string& id) {
    if (auto it = points.find(id); it != points.end()) total += it->second;
  };
  for (const auto& p : properties) add(p.id);
  if (has_answers()) add(kAnswersItem);
  return total;
}

namespace {

std::map<std::string, double> read_points(const std::string& id) {
  const std::filesystem::path file =
      std::filesystem::path(paths::exercises_dir) / id / "points.json";
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read the points table " + file.string());
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    return j.at("points").get<std::map<std::string, double>>();
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("points table " + file.string() + ": " + e.what());
  }
}

}  // namespace

Exercise load_exercise(const std::string& id) {
  const ExerciseSpec* spec = find_exercise_spec(id);
  if (!spec) {
    if (const auto why = not_graded_reason(id))
      throw std::invalid_argument("exercise " + id + " is not graded by attnlab: " + *why);
    throw std::invalid_argument("unknown exercise " + escaped_name(id) + " (attnlab grades " +
                                graded_exercises_text() + ")");
  }
  Exercise e;
  e.id = id;
  e.title = spec->title;
  e.section = spec->section;
  e.op = spec->op;
  e.properties = attn::prop::graded_properties_for(spec->op);
  e.python_entry_points = spec->python.entries;
  e.cpp_header = spec->cpp.header;
  e.cpp_entry = spec->cpp_entry();
  e.answers_form = spec->answers_form;
  e.points = read_points(id);
  return e;
}

namespace {

/// An operation `attnlab check` takes that no exercise of the registry
/// serves (no ExerciseSpec::check_serves names it): its pseudo-exercise is
/// the operation itself, answered by the Python harness's --exercise NAME
/// (OPERATION_ENTRY_POINTS in grader/harness/attnlab_harness.py, the same
/// names), with no C++ interface (toolchain_for refuses it, check says so).
struct UnservedKernel {
  Operation op;
  /// The Python function names accepted, in order of preference.
  std::vector<std::string> python_entry_points;
};

const std::vector<UnservedKernel>& unserved_kernels() {
  static const std::vector<UnservedKernel> rows = {
      {Operation::batched_attention, {"batched_attention", "grouped_query_attention"}},
  };
  return rows;
}

}  // namespace

Exercise kernel_exercise(Operation op, attn::prop::FullyForbidden fully_forbidden) {
  Exercise e;
  const UnservedKernel* unserved = nullptr;
  for (const UnservedKernel& u : unserved_kernels())
    if (u.op == op) unserved = &u;
  if (unserved) {
    e.id = attn::prop::operation_name(op);
    e.op = op;
    e.python_entry_points = unserved->python_entry_points;
  } else {
    const ExerciseSpec* serving = nullptr;
    for (const auto& spec : exercise_specs())
      if (spec.check_serves == op) serving = &spec;
    if (!serving) {
      throw std::invalid_argument(std::string("attnlab check does not take the operation ") +
                                  attn::prop::operation_name(op));
    }
    // The interface (harness, C++ header, entry names) of that exercise, the
    // kernel's property list instead of its graded one.
    e = load_exercise(serving->id);
  }
  e.title = std::string("kernel check, operation ") + attn::prop::operation_name(op);
  e.section = "every property of the text that applies to " +
              std::string(attn::prop::operation_name(op));
  e.properties = attn::prop::kernel_properties_for(op, fully_forbidden);
  e.points.clear();
  for (const auto& p : e.properties) e.points[p.id] = 1;
  e.answers_form.clear();
  e.fully_forbidden = fully_forbidden;
  return e;
}

}  // namespace attn::grader

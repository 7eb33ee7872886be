// The exercise registry (registry.hpp): exercises/registry.json, parsed once.
#include "exercises/registry.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "attn/grader/paths.hpp"
#include "exercises/answers.hpp"
#include "exercises/listed.hpp"

namespace attn::grader {

using attn::prop::Operation;
using nlohmann::json;

namespace {

Operation operation_named(const std::string& name, const std::string& where) {
  if (const auto op = attn::prop::operation_named(name)) return *op;
  throw std::runtime_error(where + ": unknown operation \"" + name + "\"");
}

std::vector<std::string> strings(const json& j, const char* key) {
  if (!j.contains(key)) return {};
  return j.at(key).get<std::vector<std::string>>();
}

/// The members a spec may have: a misspelt one is an error, not a silent default.
void only_members(const json& j, std::initializer_list<const char*> allowed, const std::string& where) {
  for (const auto& [key, _] : j.items())
    if (std::find_if(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; }) ==
        allowed.end())
      throw std::runtime_error(where + ": unknown member \"" + key + "\"");
}

ExerciseSpec parse_spec(const json& j, const std::string& where) {
  only_members(j,
               {"id", "of_the_text", "title", "section", "operation", "ops", "check_serves", "answers",
                "code_recognised_as", "supersedes", "python", "protocol_recognised_by", "cpp",
                "bundled"},
               where);
  ExerciseSpec s;
  s.id = j.at("id").get<std::string>();
  const std::string at = where + ", exercise " + s.id;
  s.of_the_text = j.at("of_the_text").get<bool>();
  s.title = j.at("title").get<std::string>();
  s.section = j.at("section").get<std::string>();
  s.op = operation_named(j.at("operation").get<std::string>(), at);
  s.ops = strings(j, "ops");
  if (j.contains("check_serves")) s.check_serves = operation_named(j.at("check_serves").get<std::string>(), at);
  s.answers_form = j.value("answers", "");
  if (!s.answers_form.empty() && s.answers_form != kShiftAnswers && s.answers_form != kRowSumAnswers)
    throw std::runtime_error(at + ": unknown answers form \"" + s.answers_form + "\"");
  s.code_recognised_as = j.value("code_recognised_as", "");
  s.supersedes = strings(j, "supersedes");
  const json& py = j.at("python");
  only_members(py, {"entries", "companions", "recognised_by", "recognised_by_all_of"}, at + ", python");
  s.python.entries = strings(py, "entries");
  s.python.companions = strings(py, "companions");
  s.python.recognised_by = strings(py, "recognised_by");
  s.python.recognised_by_all_of = strings(py, "recognised_by_all_of");
  s.protocol_recognised_by = j.contains("protocol_recognised_by") ? strings(j, "protocol_recognised_by") : s.ops;
  if (!s.code_recognised_as.empty()) s.protocol_recognised_by.clear();
  if (j.contains("cpp")) {
    const json& cpp = j.at("cpp");
    only_members(cpp, {"header", "namespace", "entries", "uses"}, at + ", cpp");
    s.cpp.header = cpp.at("header").get<std::string>();
    s.cpp.ns = cpp.at("namespace").get<std::string>();
    s.cpp.entries = strings(cpp, "entries");
    s.cpp.uses = strings(cpp, "uses");
  }
  if (j.contains("bundled")) {
    const json& b = j.at("bundled");
    only_members(b, {"solutions", "skeletons", "failing"}, at + ", bundled");
    s.bundled.solutions = strings(b, "solutions");
    s.bundled.skeletons = b.value("skeletons", false);
    for (const json& f : b.value("failing", json::array()))
      s.bundled.failing.push_back(
          {f.at("file").get<std::string>(), f.at("property").get<std::string>(), f.at("why").get<std::string>()});
  }
  if (s.ops.empty() || s.python.entries.empty())
    throw std::runtime_error(at + ": \"ops\" and python \"entries\" must not be empty");
  return s;
}

}  // namespace

std::string ExerciseSpec::cpp_entry() const {
  std::string out;
  for (const auto& e : cpp.entries) out += (out.empty() ? "" : ", ") + cpp.ns + "::" + e;
  return out;
}

std::string ExerciseSpec::cpp_harness_target() const {
  std::string lower = id;
  for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  return "attnlab_cpp_harness_" + lower;
}

ExerciseRegistry parse_exercise_registry(const std::string& text, const std::string& where) {
  ExerciseRegistry registry;
  std::vector<ExerciseSpec>& specs = registry.exercises;
  try {
    const json j = json::parse(text);
    only_members(j, {"about", "exercises", "not_graded"}, where);
    for (const json& e : j.at("exercises")) specs.push_back(parse_spec(e, where));
    for (const json& n : j.value("not_graded", json::array()))
      registry.not_graded.emplace_back(n.at("id").get<std::string>(), n.at("why").get<std::string>());
  } catch (const json::exception& e) {
    throw std::runtime_error(where + ": " + e.what());
  }
  for (std::size_t i = 0; i < specs.size(); ++i)
    for (std::size_t k = 0; k < i; ++k) {
      if (specs[i].id == specs[k].id) throw std::runtime_error(where + ": exercise " + specs[i].id + " twice");
      if (specs[i].check_serves && specs[i].check_serves == specs[k].check_serves)
        throw std::runtime_error(where + ": exercises " + specs[k].id + " and " + specs[i].id +
                                 " both serve check's operation " +
                                 attn::prop::operation_name(*specs[i].check_serves));
    }
  return registry;
}

namespace {

const ExerciseRegistry& registry() {
  static const ExerciseRegistry r = [] {
    const std::string file = paths::exercises_dir + "/registry.json";
    std::ifstream in(file);
    if (!in) throw std::runtime_error("cannot read the exercise registry " + file);
    std::ostringstream text;
    text << in.rdbuf();
    return parse_exercise_registry(text.str(), file);
  }();
  return r;
}

}  // namespace

const std::vector<ExerciseSpec>& exercise_specs() { return registry().exercises; }

std::optional<std::string> not_graded_reason(const std::string& id) {
  for (const auto& [not_graded, why] : registry().not_graded)
    if (not_graded == id) return why;
  return std::nullopt;
}


const ExerciseSpec* find_exercise_spec(const std::string& id) {
  for (const auto& s : exercise_specs())
    if (s.id == id) return &s;
  return nullptr;
}

std::vector<std::string> graded_exercise_ids(ExerciseGroup group) {
  std::vector<std::string> ids;
  for (const bool text : {true, false}) {
    if (group == (text ? ExerciseGroup::library : ExerciseGroup::of_the_text)) continue;
    for (const auto& s : exercise_specs())
      if (s.of_the_text == text) ids.push_back(s.id);
  }
  return ids;
}

std::string graded_exercises_text() {
  std::string text, library;
  for (const auto& s : exercise_specs()) {
    std::string& list = s.of_the_text ? text : library;
    list += (list.empty() ? "" : ", ") + s.id;
  }
  return library.empty() ? text : text + " and the library operations " + library;
}

std::string answers_exercises_text(const std::string& separator) {
  std::vector<std::string> ids;
  for (const auto& s : exercise_specs())
    if (!s.answers_form.empty()) ids.push_back(s.id);
  return listed(ids, separator);
}

}  // namespace attn::grader

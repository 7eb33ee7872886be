// The teacher configuration: parsing and checking (nlohmann::json).
#include "grading/teacher_config.hpp"

#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "exercises/exercise.hpp"

namespace attn::grader {
namespace {

using nlohmann::json;

void only_members(const json& j, const std::string& where, std::set<std::string> known) {
  if (!j.is_object()) throw ConfigError(where + " must be a JSON object");
  for (const auto& [key, _] : j.items()) {
    if (!known.count(key)) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw ConfigError(where + ": unknown member \"" + key + "\" (known: " + list + ")");
    }
  }
}

std::uint64_t positive_integer(const json& j, const std::string& where, bool zero_ok = false) {
  if (!j.is_number_integer() || (j.is_number_integer() && j.get<long long>() < (zero_ok ? 0 : 1)))
    throw ConfigError(where + " must be " + (zero_ok ? "a non-negative" : "a positive") +
                      " integer");
  return j.get<std::uint64_t>();
}

double positive_number(const json& j, const std::string& where) {
  if (!j.is_number() || !(j.get<double>() > 0)) throw ConfigError(where + " must be a positive number");
  return j.get<double>();
}

std::string visibility(const json& j, const std::string& where) {
  if (!j.is_string() || !is_visibility(j.get<std::string>()))
    throw ConfigError(where +
                      " must be one of \"visible\", \"hidden\", \"after_due_date\", "
                      "\"after_published\"");
  return j.get<std::string>();
}

}  // namespace

bool is_visibility(const std::string& v) {
  return v == "visible" || v == "hidden" || v == "after_due_date" || v == "after_published";
}

TeacherConfig parse_teacher_config(const std::string& text, const std::string& origin) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // also a number too large (out_of_range)
    throw ConfigError(origin + ": not valid JSON: " + e.what());
  }
  TeacherConfig c;
  only_members(j, origin,
               {"seed", "cases", "student_cases", "visibility", "exercise", "exercises", "limits",
                "comment"});
  if (j.contains("seed")) c.seed = positive_integer(j["seed"], origin + ": seed", true);
  if (j.contains("cases"))
    c.cases = static_cast<int>(positive_integer(j["cases"], origin + ": cases"));
  if (j.contains("student_cases"))
    c.student_cases =
        static_cast<int>(positive_integer(j["student_cases"], origin + ": student_cases"));
  if (j.contains("visibility")) {
    const std::string where = origin + ": visibility";
    only_members(j["visibility"], where, {"examples", "generated", "answers"});
    if (j["visibility"].contains("examples"))
      c.examples_visibility = visibility(j["visibility"]["examples"], where + ".examples");
    if (j["visibility"].contains("generated"))
      c.generated_visibility = visibility(j["visibility"]["generated"], where + ".generated");
    if (j["visibility"].contains("answers"))
      c.answers_visibility = visibility(j["visibility"]["answers"], where + ".answers");
  }
  if (j.contains("exercise")) {
    if (!j["exercise"].is_string()) throw ConfigError(origin + ": exercise must be a string (\"F3\")");
    try {
      c.exercise = load_exercise(j["exercise"].get<std::string>()).id;
    } catch (const std::exception& e) {
      throw ConfigError(origin + ": exercise: " + e.what());
    }
  }
  if (j.contains("exercises")) {
    const json& ex = j["exercises"];
    if (!ex.is_object()) throw ConfigError(origin + ": exercises must be a JSON object");
    for (const auto& [key, body] : ex.items()) {
      const std::string id = key;  // a plain variable: lambdas below capture it
      const std::string where = origin + ": exercises." + id;
      Exercise exercise;
      try {
        exercise = load_exercise(id);
      } catch (const std::exception& e) {
        throw ConfigError(where + ": " + e.what());
      }
      std::set<std::string> items;
      for (const auto& p : exercise.properties) items.insert(p.id);
      if (exercise.has_answers) items.insert(kAnswersItem);
      auto check_item = [&](const std::string& item, const std::string& at) {
        if (items.count(item)) return;
        std::string list;
        for (const auto& k : items) list += (list.empty() ? "" : ", ") + k;
        throw ConfigError(at + ": exercise " + id + " has no item \"" + item + "\" (it has: " +
                          list + ")");
      };
      only_members(body, where, {"points", "visibility"});
      ExerciseOverrides o;
      if (body.contains("points")) {
        if (!body["points"].is_object()) throw ConfigError(where + ".points must be a JSON object");
        for (const auto& [item, value] : body["points"].items()) {
          check_item(item, where + ".points");
          if (!value.is_number() || value.get<double>() < 0)
            throw ConfigError(where + ".points." + item + " must be a number >= 0");
          o.points[item] = value.get<double>();
        }
      }
      if (body.contains("visibility")) {
        if (!body["visibility"].is_object())
          throw ConfigError(where + ".visibility must be a JSON object");
        for (const auto& [item, value] : body["visibility"].items()) {
          check_item(item, where + ".visibility");
          o.visibility[item] = visibility(value, where + ".visibility." + item);
        }
      }
      c.exercises[id] = std::move(o);
    }
  }
  if (j.contains("limits")) {
    const json& l = j["limits"];
    const std::string where = origin + ": limits";
    only_members(l, where,
                 {"timeout_s", "submission_timeout_s", "compile_timeout_s", "memory_mib",
                  "max_processes", "file_size_mib"});
    if (l.contains("timeout_s")) c.limits.timeout_s = positive_number(l["timeout_s"], where + ".timeout_s");
    if (l.contains("submission_timeout_s"))
      c.limits.submission_timeout_s =
          positive_number(l["submission_timeout_s"], where + ".submission_timeout_s");
    if (l.contains("compile_timeout_s"))
      c.limits.compile_timeout_s =
          positive_number(l["compile_timeout_s"], where + ".compile_timeout_s");
    if (l.contains("memory_mib")) c.limits.memory_mib = positive_integer(l["memory_mib"], where + ".memory_mib");
    if (l.contains("max_processes"))
      c.limits.max_processes = positive_integer(l["max_processes"], where + ".max_processes", true);
    if (l.contains("file_size_mib"))
      c.limits.file_size_mib = positive_integer(l["file_size_mib"], where + ".file_size_mib");
  }
  return c;
}

TeacherConfig read_teacher_config(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw ConfigError("cannot read the configuration file " + file.string());
  std::ostringstream text;
  text << in.rdbuf();
  TeacherConfig c = parse_teacher_config(text.str(), file.string());
  std::error_code ec;
  c.path = std::filesystem::absolute(file, ec);
  if (ec) c.path = file;
  return c;
}

std::optional<std::string> fixed_exercise(const TeacherConfig& c) {
  if (c.exercise) return c.exercise;
  if (c.exercises.size() == 1) return c.exercises.begin()->first;
  return std::nullopt;
}

}  // namespace attn::grader

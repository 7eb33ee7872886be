// The teacher configuration: parsing and checking (nlohmann::json).
#include "grading/teacher_config.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <set>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "exercises/exercise.hpp"
#include "exercises/strict_json.hpp"
#include "grading/number_bounds.hpp"
#include "sandbox/escaped_name.hpp"
#include "attn/prop/catalog.hpp"

namespace attn::grader {
namespace {

using nlohmann::json;

void only_members(const json& j, const std::string& where, std::set<std::string> known) {
  if (!j.is_object()) throw ConfigError(where + " must be a JSON object");
  for (const auto& [key, _] : j.items()) {
    if (!known.count(key)) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw ConfigError(where + ": unknown member \"" + escaped_name(key) + "\" (known: " + list + ")");
    }
  }
}

/// The JSON text of `j` as written (shortened if long), for messages.
std::string shown(const json& j) {
  std::string text = j.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

/// A whole number within `b` (bounds.hpp); a fraction, a sign, a string or
/// a number past the range is refused with the key, the value and the range.
std::uint64_t whole_number(const json& j, const std::string& where, bounds::Whole b) {
  const std::string range = "a whole number from " + std::to_string(b.min) + " to " +
                            std::to_string(b.max) +
                            (b.zero_means ? ", or 0 (" + std::string(b.zero_means) + ")" : "");
  const bool whole = j.is_number_unsigned() || (j.is_number_integer() && j.get<std::int64_t>() >= 0);
  if (whole && b.zero_means && j.get<std::uint64_t>() == 0) return 0;
  if (!whole || j.get<std::uint64_t>() < b.min || j.get<std::uint64_t>() > b.max) {
    const bool below = whole && j.get<std::uint64_t>() < b.min;
    throw ConfigError(where + " is " + shown(j) + "; it must be " + range +
                      (below && b.below_min ? " (below " + std::to_string(b.min) + ": " + b.below_min + ")"
                                            : std::string()));
  }
  return j.get<std::uint64_t>();
}

/// A finite number within `b` (bounds.hpp), 0 only where `b` says what it means.
double real_number(const json& j, const std::string& where, bounds::Real b) {
  std::ostringstream range;
  range << "a number of " << b.unit << " ";
  if (b.zero_means) range << "from " << b.min << " (" << b.zero_means << ") to " << b.max;
  else range << "above " << b.min << " and at most " << b.max;
  const double x = j.is_number() ? j.get<double>() : std::nan("");
  if (!std::isfinite(x) || x < b.min || x > b.max || (x == b.min && !b.zero_means))
    throw ConfigError(where + " is " + shown(j) + "; it must be " + range.str());
  return x;
}

std::string visibility(const json& j, const std::string& where) {
  if (!j.is_string() || !is_visibility(j.get<std::string>()))
    throw ConfigError(where +
                      " must be one of \"visible\", \"hidden\", \"after_due_date\", "
                      "\"after_published\"");
  return j.get<std::string>();
}

/// "entry" and "attempts" (teacher_config.hpp): a relative path below a
/// student's folder and one of the three policies, checked together.
void read_attempts(const json& j, const std::string& origin, TeacherConfig& c) {
  if (j.contains("entry")) {
    const std::string where = origin + ": entry";
    if (!j["entry"].is_string())
      throw ConfigError(where + " is " + shown(j["entry"]) +
                        "; it must be a file name as a string (\"attention.py\")");
    const std::string e = j["entry"].get<std::string>();
    const std::filesystem::path p(e);
    bool up = false;
    for (const auto& part : p) up = up || part == "..";
    if (e.empty() || e.size() > 255 || p.is_absolute() || up || e.back() == '/' ||
        e.find('\0') != std::string::npos)
      throw ConfigError(where + " is " + shown(j["entry"]) +
                        "; it must be a file's path below the student's folder (\"attention.py\", "
                        "\"src/attention.py\"): not empty, not absolute, no \"..\", at most 255 bytes");
    c.entry = e;
  }
  if (j.contains("attempts")) {
    const json& a = j["attempts"];
    const std::string v = a.is_string() ? a.get<std::string>() : "";
    if (v == "latest") c.attempts = Attempts::latest;
    else if (v == "named") c.attempts = Attempts::named;
    else if (v == "best") c.attempts = Attempts::best;
    else
      throw ConfigError(origin + ": attempts is " + shown(a) +
                        "; it must be \"latest\" (the file modified last), \"named\" (the "
                        "file \"entry\" names) or \"best\" (every attempt, the best counts)");
    if (c.attempts == Attempts::named && !c.entry)
      throw ConfigError(origin + ": attempts is \"named\" but there is no \"entry\" naming the "
                        "file to grade; add \"entry\": \"attention.py\" or choose \"latest\"");
  }
}

/// `text` parsed as JSON, refusing an object that names a member twice
/// (exercises/strict_json.hpp): a configuration naming "cases" twice would
/// silently grade with one of them. Throws ConfigError naming the file and
/// the member's path.
json parse_unique_members(const std::string& text, const std::string& origin) {
  try {
    return parse_json_unique_members(text);
  } catch (const DuplicateMember& e) {
    throw ConfigError(origin + ": " + e.what());
  } catch (const json::exception& e) {  // also a number too large (out_of_range)
    throw ConfigError(origin + " is not valid JSON: " + json_error_text(e));
  }
}

}  // namespace

const char* attempts_name(Attempts a) {
  switch (a) {
    case Attempts::latest: return "latest";
    case Attempts::named: return "named";
    case Attempts::best: return "best";
  }
  return "latest";
}

Attempts attempt_policy(const TeacherConfig* c) {
  if (c && c->attempts) return *c->attempts;
  return c && c->entry ? Attempts::named : Attempts::latest;
}

bool is_visibility(const std::string& v) {
  return v == "visible" || v == "hidden" || v == "after_due_date" || v == "after_published";
}

TeacherConfig parse_teacher_config(const std::string& text, const std::string& origin) {
  const json j = parse_unique_members(text, origin);
  TeacherConfig c;
  only_members(j, origin,
               {"seed", "cases", "student_cases", "visibility", "exercise", "exercises", "limits",
                "anonymise_salt", "signing_key", "entry", "attempts", "comment"});
  if (j.contains("signing_key")) {
    if (!j["signing_key"].is_string() || j["signing_key"].get<std::string>().size() < 16)
      throw ConfigError(origin + ": signing_key must be a string of at least 16 characters "
                                 "(a secret of your own; it signs the gradebook's rows for "
                                 "attnlab merge)");
    c.signing_key = j["signing_key"].get<std::string>();
  }
  if (j.contains("anonymise_salt")) {
    if (!j["anonymise_salt"].is_string() ||
        j["anonymise_salt"].get<std::string>().size() < bounds::kMinSaltChars)
      throw ConfigError(origin + ": anonymise_salt must be a string of at least " +
                        std::to_string(bounds::kMinSaltChars) +
                        " characters (a secret of your own; it keys summary-anonymous.csv's ids)");
    c.anonymise_salt = j["anonymise_salt"].get<std::string>();
  }
  read_attempts(j, origin, c);
  if (j.contains("seed")) c.seed = whole_number(j["seed"], origin + ": seed", bounds::kSeed);
  if (j.contains("cases"))
    c.cases = static_cast<int>(whole_number(j["cases"], origin + ": cases", bounds::kCases));
  if (j.contains("student_cases"))
    c.student_cases = static_cast<int>(
        whole_number(j["student_cases"], origin + ": student_cases", bounds::kCases));
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
      const std::string where = origin + ": exercises." + escaped_name(id);
      Exercise exercise;
      try {
        exercise = load_exercise(id);
      } catch (const std::exception& e) {
        throw ConfigError(where + ": " + e.what());
      }
      std::set<std::string> items;
      for (const auto& p : exercise.properties) items.insert(p.id);
      if (exercise.has_answers()) items.insert(kAnswersItem);
      auto check_item = [&](const std::string& item, const std::string& at) {
        if (items.count(item)) return;
        std::string list;
        for (const auto& k : items) list += (list.empty() ? "" : ", ") + k;
        throw ConfigError(at + ": exercise " + id + " has no item \"" + escaped_name(item) + "\" (it has: " +
                          list + ")");
      };
      only_members(body, where, {"points", "visibility"});
      ExerciseOverrides o;
      if (body.contains("points")) {
        if (!body["points"].is_object()) throw ConfigError(where + ".points must be a JSON object");
        for (const auto& [item, value] : body["points"].items()) {
          check_item(item, where + ".points");
          o.points[item] = real_number(value, where + ".points." + item, bounds::kPoints);
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
    auto seconds = [&](const char* key, bounds::Real b) -> std::optional<double> {
      if (!l.contains(key)) return std::nullopt;
      return real_number(l[key], where + "." + key, b);
    };
    auto whole = [&](const char* key, bounds::Whole b) -> std::optional<std::uint64_t> {
      if (!l.contains(key)) return std::nullopt;
      return whole_number(l[key], where + "." + key, b);
    };
    c.limits.timeout_s = seconds("timeout_s", bounds::kTimeoutSeconds);
    c.limits.submission_timeout_s = seconds("submission_timeout_s", bounds::kBudgetSeconds);
    c.limits.compile_timeout_s = seconds("compile_timeout_s", bounds::kTimeoutSeconds);
    c.limits.memory_mib = whole("memory_mib", bounds::kMemoryMib);
    c.limits.max_processes = whole("max_processes", bounds::kMaxProcesses);
    c.limits.file_size_mib = whole("file_size_mib", bounds::kFileSizeMib);
  }
  return c;
}

namespace {

/// What `mode` (st_mode) is, for "is a FIFO, not a regular file".
std::string file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

/// The text of `file`, a regular file of at most kMaxConfigBytes. Opened
/// without blocking (open(2) O_NONBLOCK: a FIFO with no writer does not
/// hang) and checked with fstat(2) before any byte is read.
std::string read_config_text(const std::filesystem::path& file) {
  const std::string name = file.string();
  const int fd = ::open(name.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    throw ConfigError("cannot read the configuration file " + name + ": " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    throw ConfigError("cannot read the configuration file " + name + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw ConfigError("the configuration " + name + " is " + file_kind(st.st_mode) +
                      ", not a regular file: give a JSON file (grader/examples/attnlab-config.json)");
  if (static_cast<std::uint64_t>(st.st_size) > kMaxConfigBytes)
    throw ConfigError("the configuration file " + name + " is " + std::to_string(st.st_size) +
                      " bytes, more than the " + std::to_string(kMaxConfigBytes) +
                      " a configuration may have");
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw ConfigError("cannot read the configuration file " + name + ": " + std::strerror(errno));
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > kMaxConfigBytes)  // it grew while being read
      throw ConfigError("the configuration file " + name + " is more than " +
                        std::to_string(kMaxConfigBytes) + " bytes");
  }
  return text;
}

}  // namespace

TeacherConfig read_teacher_config(const std::filesystem::path& file) {
  TeacherConfig c = parse_teacher_config(read_config_text(file), file.string());
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

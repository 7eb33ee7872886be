// The class gradebook: student rows, regrading, merging (see gradebook.hpp).
#include "grading/gradebook.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "exercises/exercise.hpp"
#include "exercises/registry.hpp"
#include "grading/out_folder.hpp"
#include "grading/row_signature.hpp"
#include "grading/scoring_rules.hpp"
#include "sandbox/atomic_file.hpp"
#include "grading/student_names.hpp"
#include "report/results_json.hpp"
#include "report/scoring.hpp"
#include "attn/prop/catalog.hpp"

namespace attn::grader {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

std::string student_of(const SummaryRow& r) { return r.student.empty() ? r.file : r.student; }

int status_rank(const std::string& s) {
  return s == "graded" ? 0 : s == "no submission" ? 1 : s == "not gradable" ? 2 : 3;
}

bool handed_in(const SummaryRow& s) { return s.status != "no submission"; }

/// A row whose exercise attnlab could not tell (empty, or the report's "not known").
bool of_no_known_exercise(const SummaryRow& s) {
  return s.exercise.empty() || s.exercise.rfind("not known", 0) == 0;
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

/// The property columns in a fixed order: by exercise, then in each exercise's report order.
std::vector<std::pair<std::string, double>> columns_of(const Gradebook& book) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& c : book.columns)
    for (const auto& [id, max] : c.items) out.push_back({c.exercise + ":" + id, max});
  return out;
}

/// Where an exercise id stands in the registry's order (exercises/registry.json).
std::size_t exercise_rank(const std::string& id) {
  std::vector<std::string> order = graded_exercise_ids();
  return static_cast<std::size_t>(std::find(order.begin(), order.end(), id) - order.begin());
}

void sort_columns(std::vector<ExerciseColumns>& columns) {
  std::stable_sort(columns.begin(), columns.end(), [](const auto& a, const auto& b) {
    return std::make_pair(exercise_rank(a.exercise), a.exercise) <
           std::make_pair(exercise_rank(b.exercise), b.exercise);
  });
}

/// Columns read from the rows alone (a gradebook written before columns were
/// kept): each handed-in exercise, its items as the rows have them, its
/// largest maximum seen.
std::vector<ExerciseColumns> columns_from_rows(const std::vector<SummaryRow>& submissions) {
  std::vector<ExerciseColumns> out;
  for (const auto& s : submissions) {
    if (!handed_in(s) || s.exercise.empty()) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& c) { return c.exercise == s.exercise; });
    if (it == out.end()) it = out.insert(out.end(), ExerciseColumns{s.exercise, 0, {}});
    it->max_score = std::max(it->max_score, s.max_score);
    for (const auto& [id, p] : s.points)
      if (std::none_of(it->items.begin(), it->items.end(), [&](const auto& c) { return c.first == id; }))
        it->items.push_back({id, p.second});
  }
  sort_columns(out);
  return out;
}

ojson columns_json(const std::vector<ExerciseColumns>& columns) {
  ojson out = ojson::array();
  for (const auto& c : columns) {
    ojson items = ojson::array();
    for (const auto& [id, max] : c.items) items.push_back(ojson{{"id", id}, {"max_points", max}});
    out.push_back(ojson{{"exercise", c.exercise}, {"max_score", c.max_score}, {"items", items}});
  }
  return out;
}

std::vector<ExerciseColumns> columns_from_json(const nlohmann::json& j) {
  std::vector<ExerciseColumns> out;
  for (const auto& c : j) {
    ExerciseColumns col{c.at("exercise").get<std::string>(), c.at("max_score").get<double>(), {}};
    for (const auto& it : c.at("items"))
      col.items.push_back({it.at("id").get<std::string>(), it.at("max_points").get<double>()});
    out.push_back(std::move(col));
  }
  return out;
}

ojson cells_json(const StudentRow& r) {
  ojson out = ojson::object();
  for (const auto& [ex, c] : r.cells)
    out[ex] = ojson{{"status", c.status}, {"score", c.score}, {"file", c.file}};
  return out;
}

ojson student_json(const StudentRow& r) {
  ojson points = ojson::object(), max_points = ojson::object();
  for (const auto& [k, p] : r.points) {
    points[k] = p.first;
    max_points[k] = p.second;
  }
  return ojson{{"student", r.student},       {"status", r.status},
               {"score", r.score},           {"max_score", r.max_score},
               {"exercises", r.exercises},   {"files", r.files},
               {"points", points},           {"max_points", max_points},
               {"misconceptions", r.misconceptions},
               {"graded_at", r.graded_at},   {"attnlab_version", r.version},
               {"seed", r.seed},             {"settings_hash", r.settings_hash},
               {"exercise_scores", cells_json(r)},
               {"note", r.note},             {"exit_code", r.exit_code}};
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string fixed(double x, int digits) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(digits);
  os << x;
  return os.str();
}

}  // namespace

std::string csv_cell(const std::string& text) {
  std::string s = text;
  if (!s.empty() && std::string("=+-@\t\r").find(s.front()) != std::string::npos) s = "'" + s;
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_id_cell(const std::string& id) {
  if (id.find_first_of(",\"\n\r") == std::string::npos) return id;
  std::string out = "\"";
  for (char c : id) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string settings_hash(const ojson& settings) {
  // Keys sorted (nlohmann::json's order): the hash of the settings, not of their order.
  return sha256_hex(nlohmann::json::parse(settings.dump()).dump()).substr(0, 16);
}

std::string settings_differences(const ojson& a, const ojson& b) {
  std::set<std::string> keys;
  for (const auto& [k, v] : a.items()) keys.insert(k);
  for (const auto& [k, v] : b.items()) keys.insert(k);
  std::string out;
  for (const auto& k : keys) {
    const ojson va = a.contains(k) ? a[k] : ojson(), vb = b.contains(k) ? b[k] : ojson();
    if (va == vb) continue;
    out += (out.empty() ? "" : "; ") + k;
    out += va.is_structured() || vb.is_structured() ? " differs" : " " + vb.dump() + " vs " + va.dump();
  }
  return out.empty() ? "settings recorded differently" : out;
}

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string gradebook_column(const std::string& key, double max_points) {
  return key + " (" + format_points(max_points) + ")";
}

ojson summary_row_json(const SummaryRow& r) {
  ojson points = ojson::object(), max_points = ojson::object();
  ojson order = ojson::array();
  for (const auto& [id, p] : r.points) {
    points[id] = p.first;
    max_points[id] = p.second;
    order.push_back(id);
  }
  ojson digests = ojson::object();
  for (const auto& [file, sha] : r.report_sha256) digests[file] = sha;
  return ojson{{"file", r.file},           {"student", student_of(r)},
               {"exercise", r.exercise},   {"status", r.status},
               {"score", r.score},         {"max_score", r.max_score},
               {"points", points},         {"max_points", max_points},
               {"items", order},           {"misconceptions", r.misconceptions},
               {"seconds", r.seconds},     {"graded_at", r.graded_at},
               {"attnlab_version", r.version}, {"choice", r.choice},
               {"note", r.note},           {"exit_code", r.exit_code},
               {"report", r.report},       {"settings_hash", r.settings_hash},
               {"seed", r.seed},           {"report_sha256", digests},
               {"shard_id", r.shard_id},   {"signature", r.signature}};
}

SummaryRow summary_row_from_json(const nlohmann::json& j) {
  SummaryRow r;
  r.file = j.at("file").get<std::string>();
  r.student = j.value("student", r.file);
  r.exercise = j.at("exercise").get<std::string>();
  r.status = j.at("status").get<std::string>();
  r.score = j.at("score").get<double>();
  r.max_score = j.at("max_score").get<double>();
  for (const auto& id : j.at("items")) {
    const std::string k = id.get<std::string>();
    r.points.push_back({k, {j.at("points").at(k).get<double>(), j.at("max_points").at(k).get<double>()}});
  }
  if (j.contains("misconceptions"))
    r.misconceptions = j["misconceptions"].get<std::vector<std::string>>();
  r.seconds = j.value("seconds", 0.0);
  r.graded_at = j.value("graded_at", "");
  r.version = j.value("attnlab_version", "");
  r.choice = j.value("choice", "");
  r.note = j.at("note").get<std::string>();
  r.exit_code = j.at("exit_code").get<int>();
  r.report = j.at("report").get<std::string>();
  r.settings_hash = j.value("settings_hash", "");
  r.seed = j.value("seed", std::uint64_t{0});
  if (j.contains("report_sha256"))
    for (const auto& [file, sha] : j["report_sha256"].items())
      r.report_sha256.push_back({file, sha.get<std::string>()});
  r.shard_id = j.value("shard_id", "");
  r.signature = j.value("signature", "");
  return r;
}

std::vector<std::string> gradebook_students(const Gradebook& book) {
  std::set<std::string> all;
  for (const auto& r : book.submissions) all.insert(student_of(r));
  return {all.begin(), all.end()};
}

ExerciseColumns exercise_columns(const std::string& exercise, const TeacherConfig* config,
                                 const std::string& only_property) {
  const Exercise ex = load_exercise(exercise);
  const ScoringRules rules = scoring_rules(ex, config);
  ExerciseColumns out{ex.id, 0, {}};
  std::vector<std::string> ids;
  for (const auto& p : ex.properties) ids.push_back(p.id);
  if (ex.has_answers()) ids.push_back(kAnswersItem);
  for (const auto& id : ids)
    if (only_property.empty() || id == only_property) out.items.push_back({id, rules.points_for(id)});
  out.max_score = only_property.empty() ? exercise_maximum(ex, config) : 0;
  if (!only_property.empty())
    for (const auto& [id, max] : out.items) out.max_score += max;
  return out;
}

std::vector<ExerciseColumns> class_columns(const std::string& fixed, const TeacherConfig* config,
                                           const std::vector<SummaryRow>& submissions,
                                           const std::string& only_property) {
  std::set<std::string> ids;
  if (!fixed.empty()) {
    ids.insert(fixed);
  } else if (config && !config->exercises.empty()) {
    for (const auto& [id, _] : config->exercises) ids.insert(id);
  } else {
    for (const auto& s : submissions)
      if (handed_in(s) && !s.exercise.empty()) ids.insert(s.exercise);
  }
  std::vector<ExerciseColumns> out;
  for (const auto& id : ids) {
    try {
      out.push_back(exercise_columns(id, config, only_property));
    } catch (const std::invalid_argument&) {
      // Not an exercise attnlab grades (a row's exercise from an older
      // version): its rows count as they were graded, beside the columns.
    }
  }
  sort_columns(out);
  return out;
}

std::string anonymous_id(const std::string& salt, const std::string& student) {
  return "anon-" + hmac_sha256_hex(salt, student).substr(0, 16);
}

namespace {

/// Per exercise, the best of a student's files (the highest score, then the
/// best status; the first of equals, in name order), in the order first seen.
std::vector<const SummaryRow*> best_per_exercise(const std::vector<const SummaryRow*>& subs) {
  std::vector<const SummaryRow*> best;
  for (const SummaryRow* s : subs) {
    auto it = std::find_if(best.begin(), best.end(),
                           [&](const SummaryRow* b) { return b->exercise == s->exercise; });
    if (it == best.end()) {
      best.push_back(s);
    } else if (s->score > (*it)->score ||
               (s->score == (*it)->score && status_rank(s->status) < status_rank((*it)->status))) {
      *it = s;
    }
  }
  return best;
}

/// Adds a counted file's result to its student's row (not its score: see student_row).
void count_file(const SummaryRow& s, StudentRow& row, std::set<std::string>& seen) {
  if (!s.exercise.empty() && handed_in(s)) row.exercises.push_back(s.exercise);
  if (handed_in(s)) row.files.push_back(s.file);
  for (const auto& [id, p] : s.points) row.points[s.exercise + ":" + id] = p;
  for (const auto& m : s.misconceptions)
    if (seen.insert(m).second) row.misconceptions.push_back(m);
  if (handed_in(s) && (row.status == "no submission" || status_rank(s.status) > status_rank(row.status)))
    row.status = s.status;
  row.exit_code = std::max(row.exit_code, s.exit_code);
  if (!s.note.empty()) row.note += (row.note.empty() ? "" : "; ") + s.file + ": " + s.note;
  row.graded_at = std::max(row.graded_at, s.graded_at);
  if (row.version.empty()) {
    row.version = s.version;
    row.seed = s.seed;
    row.settings_hash = s.settings_hash;
  }
}

StudentRow student_row(const std::string& name, const std::vector<const SummaryRow*>& subs,
                       const std::vector<ExerciseColumns>& columns) {
  StudentRow row;
  row.student = name;
  row.status = "no submission";
  std::set<std::string> seen;
  const std::vector<const SummaryRow*> best = best_per_exercise(subs);
  for (const SummaryRow* s : best) count_file(*s, row, seen);
  std::vector<std::string> outside;
  const SummaryRow* unknown = nullptr;  // work of no known exercise that could not be graded
  for (const SummaryRow* s : best) {
    if (!handed_in(*s) || std::any_of(columns.begin(), columns.end(),
                                      [&](const auto& c) { return c.exercise == s->exercise; }))
      continue;
    if (of_no_known_exercise(*s) && s->status != "graded") {
      if (!unknown || status_rank(s->status) > status_rank(unknown->status)) unknown = s;
    } else {
      outside.push_back(s->exercise.empty() ? s->file : s->exercise);
    }
  }
  for (const auto& c : columns) {
    ExerciseCell cell;
    for (const SummaryRow* s : best)
      if (s->exercise == c.exercise && handed_in(*s))
        cell = ExerciseCell{s->status, s->status == "graded" ? s->score : 0.0, s->file};
    // Handed-in work that could not be read or graded, of no exercise attnlab
    // could tell, stands for every exercise the student has nothing else of:
    // not gradable (or error), never a 0 (the LMS files leave the student out).
    if (unknown && cell.status == "no submission")
      cell = ExerciseCell{unknown->status, 0.0, unknown->file};
    row.score += cell.score;
    row.max_score += c.max_score;
    row.cells[c.exercise] = cell;
  }
  if (!outside.empty()) {
    std::string list;
    for (const auto& o : outside) list += (list.empty() ? "" : ", ") + o;
    row.note += (row.note.empty() ? "" : "; ") + list + " not counted (not an exercise of the class)";
  }
  if (subs.size() > best.size())
    row.note += (row.note.empty() ? "" : "; ") + std::to_string(subs.size() - best.size()) +
                " other file(s) of the same exercise not counted (the best one counts)";
  return row;
}

}  // namespace

std::vector<StudentRow> student_rows(const std::vector<SummaryRow>& submissions,
                                     const std::vector<ExerciseColumns>& columns) {
  const std::vector<ExerciseColumns> cols = columns.empty() ? columns_from_rows(submissions) : columns;
  std::map<std::string, std::vector<const SummaryRow*>> by_student;
  for (const auto& s : submissions) by_student[student_of(s)].push_back(&s);
  std::vector<StudentRow> out;
  for (const auto& [name, subs] : by_student) out.push_back(student_row(name, subs, cols));
  return out;
}

Gradebook update_gradebook(const Gradebook& base, const Gradebook& fresh) {
  std::set<std::string> regraded;
  for (const auto& s : fresh.submissions) regraded.insert(student_of(s));
  Gradebook out;
  out.seed = fresh.seed;
  out.cases = fresh.cases;
  out.settings = fresh.settings;
  out.run = fresh.run;
  out.elapsed_seconds = base.elapsed_seconds + fresh.elapsed_seconds;
  for (const auto& s : base.submissions)
    if (!regraded.count(student_of(s))) out.submissions.push_back(s);
  out.submissions.insert(out.submissions.end(), fresh.submissions.begin(), fresh.submissions.end());
  std::stable_sort(out.submissions.begin(), out.submissions.end(),
                   [](const SummaryRow& a, const SummaryRow& b) {
                     return std::make_pair(student_of(a), a.file) < std::make_pair(student_of(b), b.file);
                   });
  out.columns = fresh.columns;
  for (const auto& c : base.columns)
    if (std::none_of(out.columns.begin(), out.columns.end(),
                     [&](const auto& f) { return f.exercise == c.exercise; }))
      out.columns.push_back(c);
  sort_columns(out.columns);
  out.anonymise_salt = fresh.anonymise_salt;
  out.students = student_rows(out.submissions, out.columns);
  // The gradebook stays what it was (its id); the caller signs it again.
  out.shard = base.shard.id.empty() ? fresh.shard : base.shard;
  out.shard.students = gradebook_students(out);
  out.shard.signature.clear();
  return out;
}

Gradebook read_gradebook(const fs::path& out_dir) {
  Gradebook book;
  const fs::path file = out_dir / "summary.json";
  std::error_code ec;
  if (!fs::exists(file, ec)) return book;
  try {
    std::ifstream in(file);
    const nlohmann::json j = nlohmann::json::parse(in);
    for (const auto& s : j.at("submissions")) book.submissions.push_back(summary_row_from_json(s));
    if (j.contains("overview")) book.elapsed_seconds = j["overview"].value("elapsed_seconds", 0.0);
    book.seed = j.value("seed", std::uint64_t{0});
    book.cases = j.value("cases", 0);
    if (j.contains("settings")) book.settings = ojson::parse(j["settings"].dump());
    book.columns = j.contains("columns") ? columns_from_json(j["columns"])
                                         : columns_from_rows(book.submissions);
    if (j.contains("run")) {
      const auto& run = j["run"];
      book.run.started_at = run.value("started_at", "");
      book.run.complete = run.value("complete", true);
      book.run.settings_hash = run.value("settings_hash", "");
      if (run.contains("graded")) book.run.graded = run["graded"].get<std::vector<std::string>>();
    }
    if (j.contains("shard")) {
      const auto& shard = j["shard"];
      book.shard.id = shard.at("id").get<std::string>();
      book.shard.ids = shard.at("ids").get<std::vector<std::string>>();
      book.shard.students = shard.at("students").get<std::vector<std::string>>();
      book.shard.signature = shard.value("signature", "");
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("cannot read the gradebook " + file.string() + ": " + e.what() +
                             " (move it away to start a new one)");
  }
  book.students = student_rows(book.submissions, book.columns);
  return book;
}

ojson gradebook_overview(const Gradebook& book) {
  ojson o;
  // Score histogram: percent of the maximum, ten bins (100 % in the last),
  // over the students whose counted files were all graded. A student who is
  // not gradable (fix and resubmit, not a 0), who handed in nothing, or whom
  // attnlab could not grade is counted beside it, by status.
  std::vector<int> bins(10, 0);
  std::map<std::string, int> beside = {{"not gradable", 0}, {"no submission", 0}, {"error", 0}};
  for (const auto& s : book.students) {
    if (s.status != "graded") {
      ++beside[s.status];
      continue;
    }
    if (s.max_score <= 0) continue;
    const int b = std::min(9, static_cast<int>(std::floor(10.0 * s.score / s.max_score)));
    ++bins[static_cast<std::size_t>(std::max(0, b))];
  }
  ojson hist = ojson::array();
  for (int k = 0; k < 10; ++k)
    hist.push_back(ojson{{"from_percent", 10 * k}, {"to_percent", k == 9 ? 100 : 10 * k + 10},
                         {"students", bins[static_cast<std::size_t>(k)]}});
  o["students"] = book.students.size();
  o["score_histogram"] = hist;
  o["not_in_histogram"] = beside;
  // Pass rate per property (over the students whose counted file was graded on it).
  ojson rates = ojson::object();
  for (const auto& [key, max] : columns_of(book)) {
    int graded = 0, passed = 0;
    for (const auto& s : book.students)
      if (auto it = s.points.find(key); it != s.points.end()) {
        ++graded;
        passed += it->second.first >= it->second.second;
      }
    rates[key] = ojson{{"passed", passed}, {"graded", graded},
                       {"rate", graded ? static_cast<double>(passed) / graded : 0.0}};
  }
  o["pass_rate"] = rates;
  // Diagnosed misconceptions, by the number of students showing them.
  std::map<std::string, int> count;
  for (const auto& s : book.students)
    for (const auto& m : s.misconceptions) ++count[m];
  std::vector<std::pair<std::string, int>> common(count.begin(), count.end());
  std::stable_sort(common.begin(), common.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  ojson mis = ojson::array();
  for (const auto& [k, n] : common) mis.push_back(ojson{{"misconception", k}, {"students", n}});
  o["misconceptions"] = mis;
  std::vector<std::string> names;
  for (const auto& s : book.students) names.push_back(s.student);
  o["look_alike_names"] = look_alike_groups(names);
  std::vector<double> secs;
  for (const auto& s : book.submissions)
    if (handed_in(s)) secs.push_back(s.seconds);
  o["submissions"] = secs.size();
  o["elapsed_seconds"] = book.elapsed_seconds;
  o["median_seconds_per_submission"] = median(secs);
  return o;
}

std::string overview_text(const Gradebook& book) {
  const ojson o = gradebook_overview(book);
  std::ostringstream os;
  std::size_t files = 0, ungraded = 0;  // handed in: graded, or not (not gradable, error)
  for (const auto& s : book.submissions)
    if (handed_in(s)) ++(s.status == "graded" ? files : ungraded);
  os << "class overview: " << book.students.size() << " student"
     << (book.students.size() == 1 ? "" : "s") << ", " << files << " file"
     << (files == 1 ? "" : "s") << " graded";
  if (ungraded > 0) os << ", " << ungraded << " handed in but not graded (not gradable or error)";
  os << "\n";
  os << "score histogram (percent of the maximum; the students whose files were all graded):\n";
  int most = 1;
  for (const auto& b : o["score_histogram"]) most = std::max(most, b["students"].get<int>());
  for (const auto& b : o["score_histogram"]) {
    const int n = b["students"].get<int>();
    std::string label = std::to_string(b["from_percent"].get<int>()) + "-" +
                        std::to_string(b["to_percent"].get<int>()) + "%";
    label.resize(8, ' ');
    os << "  " << label << std::string(static_cast<std::size_t>((40 * n + most - 1) / most), '#')
       << (n ? " " : "") << n << "\n";
  }
  std::string beside;
  for (const auto& [status, what] :
       std::vector<std::pair<std::string, std::string>>{
           {"not gradable", "not gradable (compile or load error: not a 0)"},
           {"no submission", "no submission (nothing handed in: 0 points)"},
           {"error", "error (attnlab could not grade them)"}})
    if (const int n = o["not_in_histogram"][status].get<int>(); n > 0)
      beside += (beside.empty() ? "" : ", ") + std::to_string(n) + " " + what;
  if (!beside.empty()) os << "  not in the histogram: " << beside << "\n";
  if (const auto left = lms_left_out(book); !left.empty()) {
    std::string names;
    for (std::size_t k = 0; k < left.size() && k < 10; ++k) names += (k ? ", " : "") + visible_name(left[k]);
    if (left.size() > 10) names += ", ...";
    os << "gradebook-canvas.csv and gradebook-moodle.csv leave out " << left.size()
       << (left.size() == 1 ? " student (" : " students (") << names
       << "): an exercise not gradable or in error, and either import would clear a grade "
       << "for its empty cell; enter their other exercises' grades by hand\n";
  }
  os << "pass rate per property:\n";
  for (const auto& [key, r] : o["pass_rate"].items())
    os << "  " << key << ": " << r["passed"].get<int>() << " / " << r["graded"].get<int>() << " ("
       << fixed(100.0 * r["rate"].get<double>(), 0) << "%)\n";
  if (!o["misconceptions"].empty()) {
    os << "most common diagnosed misconceptions:\n";
    int shown = 0;
    for (const auto& m : o["misconceptions"]) {
      if (++shown > 10) break;
      os << "  " << m["misconception"].get<std::string>() << ": " << m["students"].get<int>()
         << " student" << (m["students"].get<int>() == 1 ? "" : "s") << "\n";
    }
  }
  for (const auto& group : o["look_alike_names"]) {
    os << "warning: these students' names look alike (the same after Unicode NFC, without "
          "zero-width characters and with confusable letters mapped as UTS #39 does); check "
          "that they are different people:";
    for (const auto& n : group) os << " " << visible_name(n.get<std::string>());
    os << "\n";
  }
  os << "time: " << fixed(book.elapsed_seconds, 1) << " s elapsed, median "
     << fixed(o["median_seconds_per_submission"].get<double>(), 2) << " s per file\n";
  return os.str();
}

namespace {

/// The header cells of the grades: per exercise its total, its status, its properties.
std::string grade_header(const Gradebook& book) {
  std::string out;
  for (const auto& c : book.columns) {
    out += "," + csv_cell(c.exercise + " (" + format_points(c.max_score) + ")") + "," +
           csv_cell(c.exercise + " status");
    for (const auto& [id, max] : c.items) out += "," + csv_cell(gradebook_column(c.exercise + ":" + id, max));
  }
  return out;
}

/// A student's grade cells under grade_header (a property is empty unless
/// its exercise was graded and the property counted).
std::string grade_cells(const Gradebook& book, const StudentRow& s) {
  std::string out;
  for (const auto& c : book.columns) {
    const auto cell = s.cells.find(c.exercise);
    const ExerciseCell e = cell == s.cells.end() ? ExerciseCell{} : cell->second;
    out += "," + format_points(e.score) + "," + csv_cell(e.status);
    for (const auto& [id, max] : c.items) {
      out += ",";
      if (auto it = s.points.find(c.exercise + ":" + id); it != s.points.end() && e.status == "graded")
        out += format_points(it->second.first);
    }
  }
  return out;
}

std::string gradebook_csv(const Gradebook& book) {
  std::ostringstream out;
  out << "student,score,max_score,status,exercises,files" << grade_header(book)
      << ",misconceptions,graded_at,attnlab_version,seed,settings_hash,note\n";
  for (const auto& s : book.students) {
    out << csv_cell(s.student) << "," << format_points(s.score) << ","
        << format_points(s.max_score) << "," << csv_cell(s.status) << ","
        << csv_cell(join(s.exercises, " ")) << "," << csv_cell(join(s.files, " "))
        << grade_cells(book, s) << "," << csv_cell(join(s.misconceptions, " ")) << ","
        << s.graded_at << "," << csv_cell(s.version) << "," << s.seed << ","
        << csv_cell(s.settings_hash) << "," << csv_cell(s.note) << "\n";
  }
  return out.str();
}

/// summary.csv's grades under anonymous ids, sorted by them (gradebook.hpp).
std::string anonymous_csv(const Gradebook& book) {
  std::vector<std::pair<std::string, const StudentRow*>> rows;
  for (const auto& s : book.students) rows.push_back({anonymous_id(book.anonymise_salt, s.student), &s});
  std::sort(rows.begin(), rows.end());
  std::ostringstream out;
  out << "anonymous_id,score,max_score,status" << grade_header(book)
      << ",misconceptions,attnlab_version,seed,settings_hash\n";
  for (const auto& [id, s] : rows)
    out << id << "," << format_points(s->score) << "," << format_points(s->max_score) << ","
        << csv_cell(s->status) << grade_cells(book, *s) << ","
        << csv_cell(join(s->misconceptions, " ")) << "," << csv_cell(s->version) << ","
        << s->seed << "," << csv_cell(s->settings_hash) << "\n";
  return out.str();
}

}  // namespace

std::vector<std::string> lms_left_out(const Gradebook& book) {
  std::vector<std::string> out;
  for (const auto& s : book.students)
    for (const auto& c : book.columns)
      if (const auto it = s.cells.find(c.exercise);
          it != s.cells.end() && (it->second.status == "not gradable" || it->second.status == "error")) {
        out.push_back(s.student);
        break;
      }
  return out;
}

namespace {

/// The points a learning management system records for an exercise: a
/// graded exercise's score, 0 for no submission (a student with work that
/// could not be graded is not in the file: lms_left_out).
std::string lms_points(const StudentRow& s, const std::string& exercise) {
  const auto it = s.cells.find(exercise);
  if (it == s.cells.end() || it->second.status == "no submission") return "0";
  return it->second.status == "graded" ? format_points(it->second.score) : "";
}

bool left_out(const std::vector<std::string>& left, const std::string& student) {
  return std::find(left.begin(), left.end(), student) != left.end();
}

std::string assignment_name(const ExerciseColumns& c) { return "attnlab " + c.exercise; }

/// Canvas's gradebook import (gradebook.hpp): the five student columns, the
/// assignments, the "Points Possible" row, and only the students whose every
/// exercise has a grade (lms_left_out).
std::string canvas_csv(const Gradebook& book) {
  std::ostringstream out;
  out << "Student,ID,SIS User ID,SIS Login ID,Section";
  for (const auto& c : book.columns) out << "," << csv_cell(assignment_name(c));
  out << "\nPoints Possible,,,,";
  for (const auto& c : book.columns) out << "," << format_points(c.max_score);
  out << "\n";
  const std::vector<std::string> left = lms_left_out(book);
  for (const auto& s : book.students) {
    if (left_out(left, s.student)) continue;
    // The display name is free text (guarded); the login is the LMS's id, kept exact.
    out << csv_cell(s.student) << ",,," << csv_id_cell(s.student) << ",";
    for (const auto& c : book.columns) out << "," << lms_points(s, c.exercise);
    out << "\n";
  }
  return out.str();
}

/// Moodle's "Import grades: CSV file" (gradebook.hpp): the username, the
/// assignments, and only the students whose every exercise has a grade
/// (lms_left_out).
std::string moodle_csv(const Gradebook& book) {
  std::ostringstream out;
  out << "Username";
  for (const auto& c : book.columns) out << "," << csv_cell(assignment_name(c));
  out << "\n";
  const std::vector<std::string> left = lms_left_out(book);
  for (const auto& s : book.students) {
    if (left_out(left, s.student)) continue;
    out << csv_id_cell(s.student);  // the username Moodle matches, exactly
    for (const auto& c : book.columns) out << "," << lms_points(s, c.exercise);
    out << "\n";
  }
  return out.str();
}

ojson gradebook_json(const Gradebook& book) {
  ojson j;
  j["attnlab"] = "summary/4";
  j["seed"] = book.seed;
  j["cases"] = book.cases;
  j["settings"] = book.settings;
  ojson run{{"started_at", book.run.started_at},
            {"complete", book.run.complete},
            {"settings_hash", book.run.settings_hash}};
  if (!book.run.complete) run["graded"] = book.run.graded;
  j["run"] = run;
  if (!book.shard.id.empty())
    j["shard"] = ojson{{"id", book.shard.id},
                       {"ids", book.shard.ids},
                       {"students", book.shard.students},
                       {"signature", book.shard.signature}};
  j["columns"] = columns_json(book.columns);
  ojson students = ojson::array(), subs = ojson::array();
  std::map<std::string, int> counts = {
      {"graded", 0}, {"not gradable", 0}, {"error", 0}, {"no submission", 0}};
  for (const auto& s : book.students) students.push_back(student_json(s));
  for (const auto& r : book.submissions) {
    subs.push_back(summary_row_json(r));
    ++counts[r.status];
  }
  j["counts"] = counts;
  j["students"] = std::move(students);
  j["submissions"] = std::move(subs);
  j["overview"] = gradebook_overview(book);
  return j;
}

}  // namespace

void write_gradebook(const fs::path& out_dir, const Gradebook& book) {
  // summary.json last: it is the one a later run reads back.
  std::vector<std::pair<fs::path, std::string>> files = {
      {out_dir / "summary.csv", gradebook_csv(book)},
      {out_dir / "gradebook-canvas.csv", canvas_csv(book)},
      {out_dir / "gradebook-moodle.csv", moodle_csv(book)}};
  const fs::path anonymous = out_dir / "summary-anonymous.csv";
  if (!book.anonymise_salt.empty()) files.push_back({anonymous, anonymous_csv(book)});
  files.push_back({out_dir / "summary.txt", overview_text(book)});
  files.push_back({out_dir / "summary.json", dump_json(gradebook_json(book))});
  write_files_atomically(files);
  // Without the salt an older anonymous gradebook would disagree with this one.
  std::error_code ec;
  if (book.anonymise_salt.empty()) fs::remove(anonymous, ec);
}

}  // namespace attn::grader

// `attnlab mutants`: the bug-injection catalogue graded like submissions,
// with the kill matrix, the hints and the sizes of the shrunk counterexamples.
#include "commands/mutants.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "exercises/exercise.hpp"
#include "exercises/registry.hpp"
#include "diagnosis/diagnosis_text.hpp"
#include "diagnosis/feedback.hpp"
#include "sandbox/python_finder.hpp"
#include "sandbox/temp_dir.hpp"
#include "submission/submission.hpp"
#include "attn/prop/case.hpp"
#include "attn/prop/catalog.hpp"

namespace attn::grader {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  const auto e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::vector<MutantInfo> read_all(const fs::path& dir, const std::set<std::string>& extensions) {
  std::vector<MutantInfo> list;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return list;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && extensions.count(entry.path().extension().string()))
      list.push_back(read_mutant_info(entry.path()));
  }
  std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.file < b.file; });
  return list;
}

// ----------------------------------------------------------------- the jobs

struct Job {
  enum class Kind { mutant, solution } kind = Kind::mutant;
  fs::path file;
  std::string exercise;
  std::optional<fs::path> answers;  ///< solutions of F2, F4
  const MutantInfo* info = nullptr;  ///< mutants
  std::string label;                 ///< "F3 no_scale"
  std::string shown;                 ///< the file below the checkout
};

/// What a child reports about one grading (also what the parent reads back).
struct Item {
  std::string id;
  bool passed = false;
  bool skipped = false;
  bool generated = true;
  bool has_case = false;
  long T_q = -1, T_v = -1, d_k = -1, d_v = -1, heads = -1;
  std::string summary;
  std::string hint_key, hint;
  bool hint_from_shape = false;  ///< read from the failure's outcome, not the property's own hint
  /// The diagnosis stage's result: its verdict name, the keys it named, each
  /// named key's parameters as "name=text", a summary line, and its cost.
  std::string diagnosis = "none";
  std::vector<std::string> keys;
  std::vector<std::string> params;
  std::string diagnosis_text;
  bool diagnosis_reused = false;
  long diagnosis_cases = 0;
  double diagnosis_seconds = 0;
};

struct Outcome {
  std::string status = "error";  ///< "graded", "not gradable", "error"
  std::string message;
  std::vector<Item> items;
  std::string report;  ///< the text report
  double seconds = 0;
};

json to_json(const Outcome& o) {
  json items = json::array();
  for (const Item& i : o.items)
    items.push_back({{"id", i.id}, {"passed", i.passed}, {"skipped", i.skipped},
                     {"generated", i.generated}, {"has_case", i.has_case}, {"T_q", i.T_q},
                     {"T_v", i.T_v}, {"d_k", i.d_k}, {"d_v", i.d_v}, {"heads", i.heads},
                     {"summary", i.summary}, {"hint_key", i.hint_key}, {"hint", i.hint},
                     {"hint_from_shape", i.hint_from_shape}, {"diagnosis", i.diagnosis},
                     {"keys", i.keys}, {"params", i.params}, {"diagnosis_text", i.diagnosis_text},
                     {"diagnosis_reused", i.diagnosis_reused}, {"diagnosis_cases", i.diagnosis_cases},
                     {"diagnosis_seconds", i.diagnosis_seconds}});
  return {{"status", o.status}, {"message", o.message}, {"items", items},
          {"report", o.report}, {"seconds", o.seconds}};
}

Outcome from_json(const json& j) {
  Outcome o;
  o.status = j.at("status").get<std::string>();
  o.message = j.at("message").get<std::string>();
  o.report = j.at("report").get<std::string>();
  o.seconds = j.at("seconds").get<double>();
  for (const json& x : j.at("items")) {
    Item i;
    i.id = x.at("id").get<std::string>();
    i.passed = x.at("passed").get<bool>();
    i.skipped = x.at("skipped").get<bool>();
    i.generated = x.at("generated").get<bool>();
    i.has_case = x.at("has_case").get<bool>();
    i.T_q = x.at("T_q").get<long>();
    i.T_v = x.at("T_v").get<long>();
    i.d_k = x.at("d_k").get<long>();
    i.d_v = x.at("d_v").get<long>();
    i.heads = x.at("heads").get<long>();
    i.summary = x.at("summary").get<std::string>();
    i.hint_key = x.at("hint_key").get<std::string>();
    i.hint = x.at("hint").get<std::string>();
    i.hint_from_shape = x.at("hint_from_shape").get<bool>();
    i.diagnosis = x.at("diagnosis").get<std::string>();
    i.keys = x.at("keys").get<std::vector<std::string>>();
    i.params = x.at("params").get<std::vector<std::string>>();
    i.diagnosis_text = x.at("diagnosis_text").get<std::string>();
    i.diagnosis_reused = x.at("diagnosis_reused").get<bool>();
    i.diagnosis_cases = x.at("diagnosis_cases").get<long>();
    i.diagnosis_seconds = x.at("diagnosis_seconds").get<double>();
    o.items.push_back(std::move(i));
  }
  return o;
}

Item item_of(const attn::prop::Verdict& v, const ScoredItem* scored) {
  Item it;
  it.id = v.property_id;
  it.passed = v.passed();
  it.skipped = v.skipped();
  it.generated = v.generated;
  if (v.counterexample) {
    const auto& c = *v.counterexample;
    it.has_case = true;
    const attn::prop::CaseSizes s = attn::prop::case_sizes(c);
    it.T_q = long(s.T_q);
    it.T_v = long(s.T_v);
    if (s.d_k) it.d_k = long(*s.d_k);
    if (s.d_v) it.d_v = long(*s.d_v);
    if (s.heads) it.heads = long(*s.heads);
  }
  if (v.failure) it.summary = v.failure->summary;
  else if (!v.error.empty()) it.summary = v.error;
  if (auto h = hint_for(v)) {
    it.hint_key = h->key;
    it.hint = h->headline;
    it.hint_from_shape = h->from_shape;
  }
  if (scored && scored->diagnosis) {
    const FailureDiagnosis& d = *scored->diagnosis;
    it.diagnosis = diagnosis_status_name(d);
    it.keys = misconception_keys(d);
    for (const auto& f : d.engine.fits)
      for (const auto& p : f.params) it.params.push_back(f.key + ":" + p.name + "=" + p.text);
    it.diagnosis_text = diagnosis_summary(d);
    it.diagnosis_reused = d.cached;
    if (d.status == FailureDiagnosis::Status::diagnosed && !d.cached) {
      it.diagnosis_cases = long(d.engine.cases_sent);
      it.diagnosis_seconds = d.engine.seconds;
    }
  }
  return it;
}

Outcome grade_submission(const MutantsOptions& options, const Job& job) {
  Outcome o;
  GradeOptions g = options.grade;
  g.file = job.file;
  g.display_name = job.shown;
  g.exercise = job.exercise;
  g.answers = job.answers;
  std::ostringstream report;
  const auto t0 = Clock::now();
  const GradeResult r = grade_file(g, report);
  o.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  o.report = report.str();
  o.message = r.message;
  switch (r.status) {
    case GradeResult::Status::graded: o.status = "graded"; break;
    case GradeResult::Status::not_gradable: o.status = "not gradable"; break;
    default: o.status = "error"; break;
  }
  for (std::size_t k = 0; k < r.verdicts.size(); ++k)
    o.items.push_back(item_of(r.verdicts[k], k < r.items.size() ? &r.items[k] : nullptr));
  return o;
}

/// Runs in the forked child: grades job k and leaves its outcome in dir/k.json.
[[noreturn]] void child_main(const MutantsOptions& options, const Job& job, std::size_t k,
                             const fs::path& dir, pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(2);
  Outcome o;
  try {
    o = grade_submission(options, job);
  } catch (const std::exception& e) {
    o.status = "error";
    o.message = std::string("grader error: ") + e.what();
  }
  try {
    const fs::path tmp = dir / (std::to_string(k) + ".json.tmp");
    {
      std::ofstream out(tmp);
      out << to_json(o).dump(-1, ' ', false, json::error_handler_t::replace);
    }
    fs::rename(tmp, dir / (std::to_string(k) + ".json"));
  } catch (...) {
    _exit(2);
  }
  std::cout.flush();
  std::cerr.flush();
  _exit(0);
}

/// Grades every job, `jobs` at a time, each in a forked process; prints a
/// progress line per finished job.
std::vector<Outcome> grade_all(const MutantsOptions& options, const std::vector<Job>& jobs,
                               std::ostream& out) {
  const std::size_t n = jobs.size();
  std::vector<Outcome> outcomes(n);
  // find_python remembers the interpreter it found for the rest of the
  // process; probed here, before the forks, every grading process inherits
  // it instead of probing again (one NumPy import, about 0.3 s of CPU, per
  // Python file graded; docs/MEASUREMENTS.md, "Suite time").
  if (std::any_of(jobs.begin(), jobs.end(),
                  [](const Job& j) { return detect_language(j.file) == Language::python; }))
    find_python(options.grade.launch.python);
  TempDir dir("attnlab-mutants-");
  const pid_t parent = getpid();
  const int width = std::max(1, options.jobs);
  // A child past this is stopped (a hung compiler, a hung grading).
  std::chrono::milliseconds limit{0};
  if (options.grade.submission_timeout.count() > 0)
    limit = options.grade.submission_timeout + 2 * options.grade.launch.compile_timeout +
            std::chrono::minutes(2);
  struct Running {
    pid_t pid;
    std::size_t index;
    Clock::time_point start;
    bool killed = false;
  };
  std::vector<Running> running;
  std::size_t next = 0, done = 0;
  while (done < n) {
    while (running.size() < std::size_t(width) && next < n) {
      out.flush();
      std::cout.flush();
      std::cerr.flush();
      const pid_t pid = fork();
      if (pid == 0) child_main(options, jobs[next], next, dir.path(), parent);
      if (pid < 0) {
        outcomes[next].message = "cannot fork a grader process";
        ++next;
        ++done;
        continue;
      }
      running.push_back({pid, next, Clock::now()});
      ++next;
    }
    int st = 0;
    const pid_t p = waitpid(-1, &st, WNOHANG);
    if (p <= 0) {
      if (limit.count() > 0)
        for (auto& r : running)
          if (!r.killed && Clock::now() - r.start > limit) {
            ::kill(r.pid, SIGKILL);
            r.killed = true;
          }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    const auto it = std::find_if(running.begin(), running.end(), [&](const Running& r) { return r.pid == p; });
    if (it == running.end()) continue;
    const std::size_t k = it->index;
    Outcome& o = outcomes[k];
    try {
      std::ifstream in(dir.path() / (std::to_string(k) + ".json"));
      if (!in) throw std::runtime_error("no result");
      o = from_json(json::parse(in));
    } catch (const std::exception&) {
      o.status = "error";
      o.message = it->killed ? "the grader was stopped after " + std::to_string(limit.count() / 1000) + " s"
                  : WIFSIGNALED(st) ? "the grader died with signal " + std::to_string(WTERMSIG(st))
                                    : "the grader ended without a result";
    }
    running.erase(it);
    ++done;
    const Job& job = jobs[k];
    std::string what;
    if (o.status != "graded") {
      what = o.status + ": " + o.message.substr(0, o.message.find('\n'));
    } else {
      int failed = 0;
      for (const auto& i : o.items) failed += !i.passed && !i.skipped;
      what = failed == 0 ? "every property passed"
                         : std::to_string(failed) + " of " + std::to_string(o.items.size()) +
                               " properties failed";
    }
    std::ostringstream secs;
    secs << std::fixed << std::setprecision(1) << o.seconds;
    out << "[" << done << "/" << n << "] " << job.label << " (" << job.shown << "): " << what
        << ", " << secs.str() << " s\n";
    out.flush();
  }
  return outcomes;
}

// ------------------------------------------------------------------ reports

std::string size_text(const Item& i) {
  if (!i.has_case) return "-";
  std::ostringstream os;
  os << i.T_q << "x" << i.T_v;
  if (i.d_k >= 0) os << "x" << i.d_k << "x" << i.d_v;
  if (i.heads >= 0) os << " (h = " << i.heads << ")";
  return os.str();
}

long largest(const Item& i) { return std::max({i.T_q, i.T_v, i.d_k, i.d_v}); }
long total(const Item& i) {
  return i.T_q + i.T_v + std::max(0L, i.d_k) + std::max(0L, i.d_v);
}

const Item* first_failed(const Outcome& o) {
  for (const auto& i : o.items)
    if (!i.passed && !i.skipped) return &i;
  return nullptr;
}

/// The hint a student would read first: that of the first failing property
/// whose failure's shape names a misconception, else the first failing one's.
const Item* hint_item(const Outcome& o) {
  for (const auto& i : o.items)
    if (!i.passed && !i.skipped && i.hint_from_shape) return &i;
  return first_failed(o);
}

/// Property ids in the order the matrix shows them: the report order of the
/// attention operation's graded properties (the text's main exercise), then
/// each graded exercise's in the registry's order, its answers after its
/// properties; ids of no exercise after all these.
int column_rank(const std::string& id) {
  static const std::vector<std::string> order = [] {
    std::vector<std::string> ids;
    auto add = [&](const std::string& i) {
      if (std::find(ids.begin(), ids.end(), i) == ids.end()) ids.push_back(i);
    };
    for (const auto& p : attn::prop::attention_properties()) add(p.id);
    for (const auto& spec : exercise_specs()) {  // its spec: no points table read
      for (const auto& p : attn::prop::graded_properties_for(spec.op)) add(p.id);
      if (!spec.answers_form.empty()) add(kAnswersItem);
    }
    return ids;
  }();
  const auto it = std::find(order.begin(), order.end(), id);
  return it == order.end() ? int(order.size()) : int(it - order.begin());
}

/// The shrunk counterexample of a mutant: its first catching property's, or
/// if that one is a fixed example of the text, the first generated one.
const Item* shrunk_counterexample(const Outcome& o) {
  for (const auto& i : o.items)
    if (!i.passed && !i.skipped && i.has_case && i.generated) return &i;
  return nullptr;
}

std::string median_text(std::vector<long> v) {
  if (v.empty()) return "-";
  std::sort(v.begin(), v.end());
  return std::to_string(v[(v.size() - 1) / 2]);
}

}  // namespace

MutantInfo read_mutant_info(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read mutant " + file.string());
  std::map<std::string, std::string> fields;
  std::string line;
  while (std::getline(in, line)) {
    std::string body = trim(line);
    if (body.rfind("#", 0) == 0 && body.rfind("#include", 0) != 0 && body.rfind("#pragma", 0) != 0)
      body = body.substr(1);
    else if (body.rfind("//", 0) == 0)
      body = body.substr(2);
    else
      break;  // the header ends at the first line that is not a comment
    const auto colon = body.find(':');
    if (colon != std::string::npos) {
      const std::string key = trim(body.substr(0, colon));
      if (!fields.count(key)) fields[key] = trim(body.substr(colon + 1));
    }
  }
  MutantInfo m;
  m.file = file;
  auto need = [&](const char* key) {
    auto it = fields.find(key);
    if (it == fields.end() || it->second.empty())
      throw std::runtime_error("mutant " + file.string() + ": the header has no '" + key + ":' line");
    return it->second;
  };
  m.name = need("mutant");
  m.exercise = need("exercise");
  m.misconception = need("misconception");
  m.violates = need("violates");
  m.caught_by = need("caught by");
  if (const auto key = fields.find("key"); key != fields.end()) m.key = key->second;
  // "scale=1/d_k (scaled twice)" -> "scale=1/d_k"; "epsilon (fitted)" -> "".
  if (const auto p = fields.find("key parameter");
      p != fields.end() && p->second.find('=') != std::string::npos)
    m.key_parameter = trim(p->second.substr(0, p->second.find(" (")));
  return m;
}

std::vector<MutantInfo> mutant_catalogue(const fs::path& dir) { return read_all(dir, {".py", ".cpp"}); }

namespace {

/// What the kill matrix's readers are told went wrong, and how many jobs
/// could not be graded for a reason of the grader's own (exit code 2).
struct Tally {
  std::vector<std::string> problems;
  int infrastructure = 0;
};

/// The catalogue folder: --catalogue, or exercises/mutants/ of the checkout.
fs::path catalogue_folder(const MutantsOptions& options) {
  return options.catalogue_dir.empty() ? options.source_dir / "exercises" / "mutants"
                                       : options.catalogue_dir;
}

/// Throws std::runtime_error unless every mutant's header names an exercise
/// attnlab grades and one of that exercise's properties as its catcher.
void check_headers(const std::vector<MutantInfo>& catalogue) {
  for (const auto& m : catalogue) {
    Exercise e;
    try {
      e = load_exercise(m.exercise);
    } catch (const std::exception& x) {
      throw std::runtime_error("mutant " + m.file.string() + ": " + x.what());
    }
    std::string ids;
    bool known = false;
    for (const auto& p : e.properties) {
      ids += (ids.empty() ? "" : ", ") + p.id;
      known = known || p.id == m.caught_by;
    }
    if (!known)
      throw std::runtime_error("mutant " + m.file.string() + ": 'caught by: " + m.caught_by +
                               "' is not a property of exercise " + m.exercise + " (" + ids + ")");
  }
}

/// One job per mutant, then (with options.solutions) one per model solution
/// of each exercise the catalogue covers, with its answers file if any.
std::vector<Job> make_jobs(const MutantsOptions& options, const std::vector<MutantInfo>& catalogue,
                           const std::function<std::string(const fs::path&)>& shown) {
  std::vector<Job> jobs;
  std::set<std::string> exercises;
  for (const auto& m : catalogue) {
    Job j;
    j.kind = Job::Kind::mutant;
    j.file = m.file;
    j.exercise = m.exercise;
    j.info = &m;
    j.label = m.exercise + " " + m.name;
    j.shown = shown(m.file);
    jobs.push_back(j);
    exercises.insert(m.exercise);
  }
  if (!options.solutions) return jobs;
  for (const auto& ex : exercises) {
    const fs::path sdir = options.source_dir / "solutions" / ex;
    std::error_code ec;
    if (!fs::is_directory(sdir, ec)) continue;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(sdir)) {
      const auto ext = entry.path().extension();
      if (entry.is_regular_file() && (ext == ".py" || ext == ".cpp")) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      Job j;
      j.kind = Job::Kind::solution;
      j.file = f;
      j.exercise = ex;
      if (fs::is_regular_file(sdir / "answers.json", ec)) j.answers = sdir / "answers.json";
      j.label = ex + " solution " + f.filename().string();
      j.shown = shown(f);
      jobs.push_back(j);
    }
  }
  return jobs;
}

/// The kill matrix: one row per job, one column per property id (in report
/// order, across exercises): X caught, . passed, - not a property or skipped.
void print_kill_matrix(std::ostream& out, const std::vector<Job>& jobs,
                       const std::vector<Outcome>& outcomes) {
  std::vector<std::string> columns;
  for (const auto& o : outcomes)
    for (const auto& i : o.items)
      if (std::find(columns.begin(), columns.end(), i.id) == columns.end()) columns.push_back(i.id);
  std::stable_sort(columns.begin(), columns.end(),
                   [](const std::string& a, const std::string& b) { return column_rank(a) < column_rank(b); });
  std::size_t label_width = 12;
  for (const auto& j : jobs) label_width = std::max(label_width, j.label.size());
  label_width = std::min<std::size_t>(label_width, 40);

  out << "\nKill matrix (X: the property caught it; .: passed; -: not a property of its exercise, or skipped)\n\n";
  for (std::size_t c = 0; c < columns.size(); ++c)
    out << "  " << std::setw(2) << c + 1 << " " << columns[c] << "\n";
  out << "\n  " << std::string(label_width, ' ') << " ";
  for (std::size_t c = 0; c < columns.size(); ++c) out << std::setw(3) << c + 1;
  out << "\n";
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const Outcome& o = outcomes[k];
    std::string label = jobs[k].label;
    label.resize(label_width, ' ');
    out << "  " << label << " ";
    for (const auto& id : columns) {
      const auto it = std::find_if(o.items.begin(), o.items.end(), [&](const Item& i) { return i.id == id; });
      out << "  " << (it == o.items.end() || it->skipped ? '-' : it->passed ? '.' : 'X');
    }
    out << "\n";
  }
}

/// Counts of the mutants section.
struct MutantCounts {
  int caught = 0;
  int by_declared = 0;
  std::vector<const Item*> sizes;  ///< each caught mutant's shrunk counterexample
};

/// Each distinct diagnosis of a mutant's failed properties, with the
/// properties it is for and its cost.
void print_diagnoses(std::ostream& out, const Outcome& o) {
  std::vector<std::pair<std::string, std::string>> seen;  // summary, properties
  for (const auto& i : o.items) {
    if (i.passed || i.skipped || i.diagnosis == "none") continue;
    const std::string text = i.diagnosis_text.empty() ? i.diagnosis : i.diagnosis_text;
    auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& p) { return p.first == text; });
    if (it == seen.end()) seen.push_back({text, i.id});
    else it->second += ", " + i.id;
  }
  for (const auto& [text, ids] : seen) out << "    diagnosis (" << ids << "): " << text << "\n";
}

/// The mutant's diagnoses against the key its header names: every failed
/// property's diagnosis names that key or nothing; one names it alone, with
/// the header's parameter when it gives one.
void check_keys(std::ostream& out, const Job& j, const Outcome& o, Tally& tally) {
  if (j.info->key.empty()) {
    out << "    expected key: NONE (its header has no 'key:' line)\n";
    tally.problems.push_back(j.label + ": its header names no misconception key");
    return;
  }
  struct {
    std::string key, parameter;
  } want{j.info->key, j.info->key_parameter};
  bool named = false;
  std::vector<std::string> wrong;
  for (const auto& i : o.items) {
    if (i.passed || i.skipped) continue;
    // "Several known mistakes fit" that include the expected key is honest
    // (the battery could not tell them apart there); any other key is wrong.
    const bool several_with_it =
        i.diagnosis == "several" && std::find(i.keys.begin(), i.keys.end(), want.key) != i.keys.end();
    for (const auto& k : i.keys)
      if (k != want.key && !several_with_it) wrong.push_back(i.id + " -> " + k);
    if (i.diagnosis != "misconception" || i.keys != std::vector<std::string>{want.key}) continue;
    // The header's parameter ("scale=1/d_k") begins the fitted one's text
    // ("scale=1/d_k (scaled twice)").
    const std::string wanted = want.key + ":" + want.parameter;
    if (want.parameter.empty() ||
        std::any_of(i.params.begin(), i.params.end(),
                    [&](const std::string& p) { return p.rfind(wanted, 0) == 0; }))
      named = true;
  }
  out << "    expected key " << want.key << (want.parameter.empty() ? "" : " (" + want.parameter + ")")
      << ": " << (named && wrong.empty() ? "named" : named ? "named, and WRONG NAMES" : "NOT NAMED")
      << "\n";
  if (!named)
    tally.problems.push_back(j.label + ": the diagnosis does not name " + want.key +
                             (want.parameter.empty() ? "" : " (" + want.parameter + ")"));
  for (const auto& w : wrong) tally.problems.push_back(j.label + ": wrong misconception named: " + w);
}

/// The diagnosis battery's cost over the catalogue: every diagnosis run
/// (not reused) on a mutant, median and worst of its cases and seconds.
void print_diagnosis_cost(std::ostream& out, const std::vector<Outcome>& outcomes,
                          std::size_t n_mutants) {
  std::vector<long> cases;
  std::vector<double> seconds;
  for (std::size_t k = 0; k < n_mutants && k < outcomes.size(); ++k)
    for (const auto& i : outcomes[k].items)
      if (i.diagnosis_cases > 0) {
        cases.push_back(i.diagnosis_cases);
        seconds.push_back(i.diagnosis_seconds);
      }
  if (cases.empty()) return;
  std::sort(cases.begin(), cases.end());
  std::sort(seconds.begin(), seconds.end());
  const std::size_t m = (cases.size() - 1) / 2;
  std::ostringstream os;
  os << std::fixed << std::setprecision(3);
  os << "\nDiagnosis battery cost (" << cases.size()
     << " diagnoses run on failing mutants, each in the submission's own process): cases median "
     << cases[m] << ", worst " << cases.back() << "; seconds median " << seconds[m] << ", worst "
     << seconds.back() << "\n";
  out << os.str();
}

/// Per mutant: the first property that caught it, its shrunk counterexample's
/// size, whether its declared catcher caught it too, and the hint given.
MutantCounts print_mutants(std::ostream& out, const MutantsOptions& options,
                           const std::vector<Job>& jobs, const std::vector<Outcome>& outcomes,
                           std::size_t n_mutants, Tally& tally) {
  out << "\nMutants: the first property that caught each, the size T_q x T_v x d_k x d_v of its shrunk\n"
         "counterexample (T_q x T_v for the softmax and mask exercises; T x T x d_k x d_v and the\n"
         "heads h for multi-head attention), and the hint the grader gives for it\n";
  MutantCounts counts;
  for (std::size_t k = 0; k < n_mutants; ++k) {
    const Job& j = jobs[k];
    const Outcome& o = outcomes[k];
    out << "\n  " << j.label << "  (" << j.shown << ")\n";
    if (o.status != "graded") {
      out << "    NOT GRADED: " << o.status << ": " << o.message.substr(0, o.message.find('\n')) << "\n";
      if (o.status == "error") ++tally.infrastructure;
      tally.problems.push_back(j.label + ": not graded (" + o.status + ")");
      if (options.verbose && !o.report.empty()) out << o.report << "\n";
      continue;
    }
    const Item* first = first_failed(o);
    if (!first) {
      out << "    NOT CAUGHT: every property passed (declared catcher: " << j.info->caught_by << ")\n";
      tally.problems.push_back(j.label + ": not caught");
      if (options.verbose) out << o.report << "\n";
      continue;
    }
    ++counts.caught;
    const bool declared = std::any_of(o.items.begin(), o.items.end(), [&](const Item& i) {
      return i.id == j.info->caught_by && !i.passed && !i.skipped;
    });
    counts.by_declared += declared;
    const Item* shrunk = shrunk_counterexample(o);
    if (shrunk) counts.sizes.push_back(shrunk);
    out << "    caught first by " << first->id;
    if (first->has_case && !first->generated) out << " (the text's worked example)";
    if (shrunk) out << "; shrunk counterexample " << size_text(*shrunk) << (shrunk != first ? " (" + shrunk->id + ")" : "");
    out << "\n    declared catcher " << j.info->caught_by << ": "
        << (declared ? "caught it too" : "DID NOT CATCH IT") << "\n";
    if (!declared) tally.problems.push_back(j.label + ": not caught by its declared property " + j.info->caught_by);
    out << "    hint (" << first->id << "): " << (first->hint.empty() ? "(none)" : first->hint)
        << (first->hint_key.empty() ? "" : " [" + first->hint_key + "]") << "\n";
    // The first catch's hint is the property's own: add the first one read from a failure's shape.
    if (const Item* h = hint_item(o); !first->hint_from_shape && h != first)
      out << "    shape hint (" << h->id << "): " << h->hint << " [" << h->hint_key << "]\n";
    print_diagnoses(out, o);
    out << "    misconception: " << j.info->misconception << "\n";
    if (options.check_keys) check_keys(out, j, o, tally);
    if (options.verbose && !declared) out << o.report << "\n";
  }
  return counts;
}

/// The model solutions (jobs from n_mutants on): every property must pass.
/// Returns how many were clean.
int print_solutions(std::ostream& out, const std::vector<Job>& jobs,
                    const std::vector<Outcome>& outcomes, std::size_t n_mutants, Tally& tally) {
  if (jobs.size() > n_mutants) out << "\nModel solutions (every property must pass):\n";
  int clean = 0;
  for (std::size_t k = n_mutants; k < jobs.size(); ++k) {
    const Outcome& o = outcomes[k];
    std::string verdict;
    if (o.status != "graded") {
      verdict = "NOT GRADED: " + o.status + ": " + o.message.substr(0, o.message.find('\n'));
      if (o.status == "error") ++tally.infrastructure;
    } else {
      std::vector<std::string> bad;
      for (const auto& i : o.items)
        if (!i.passed) bad.push_back(i.id + (i.skipped ? " (skipped)" : ""));
      if (bad.empty()) {
        verdict = "clean (" + std::to_string(o.items.size()) + " properties)";
        ++clean;
      } else {
        verdict = "FAILED:";
        for (const auto& b : bad) verdict += " " + b;
      }
    }
    out << "  " << jobs[k].label << "  " << jobs[k].shown << ": " << verdict << "\n";
    if (verdict.rfind("clean", 0) != 0) {
      tally.problems.push_back(jobs[k].shown + ": " + verdict);
      out << outcomes[k].report << "\n";
    }
  }
  return clean;
}

/// A histogram of the shrunk counterexamples' largest dimension and their
/// median size; a median above 3 is a problem (counterexamples must stay small).
void print_sizes(std::ostream& out, const std::vector<const Item*>& sizes, Tally& tally) {
  if (sizes.empty()) return;
  std::vector<const Item*> sorted = sizes;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Item* a, const Item* b) {
    return std::make_pair(largest(*a), total(*a)) < std::make_pair(largest(*b), total(*b));
  });
  const Item& median = *sorted[(sorted.size() - 1) / 2];
  std::vector<long> tq, tv, dk, dv;
  std::map<long, int> histogram;
  for (const Item* i : sizes) {
    tq.push_back(i->T_q);
    tv.push_back(i->T_v);
    if (i->d_k >= 0) dk.push_back(i->d_k);
    if (i->d_v >= 0) dv.push_back(i->d_v);
    ++histogram[largest(*i)];
  }
  out << "\nShrunk counterexample sizes (" << sizes.size()
      << " mutants; the largest of T_q, T_v, d_k, d_v):\n";
  for (const auto& [s, count] : histogram)
    out << "  " << std::setw(3) << s << ": " << std::string(std::size_t(count), '#') << " " << count << "\n";
  out << "  median shrunk counterexample: " << size_text(median) << ", largest dimension "
      << largest(median) << "\n";
  out << "  median per dimension: T_q " << median_text(tq) << ", T_v " << median_text(tv) << ", d_k "
      << median_text(dk) << ", d_v " << median_text(dv) << "\n";
  if (largest(median) > 3) tally.problems.push_back("the median shrunk counterexample is larger than 3");
}

}  // namespace

int run_mutants(const MutantsOptions& options, std::ostream& out) {
  const fs::path dir = catalogue_folder(options);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    out << "attnlab: the catalogue folder " << dir.string() << " does not exist\n";
    return 2;
  }
  std::vector<MutantInfo> catalogue;
  try {
    catalogue = mutant_catalogue(dir);
    check_headers(catalogue);
  } catch (const std::exception& e) {
    out << "attnlab: " << e.what() << "\n";
    return 2;
  }
  if (catalogue.empty()) {
    out << "attnlab: no mutant in " << dir.string() << " (*.py, *.cpp)\n";
    return 2;
  }
  auto shown = [&](const fs::path& p) {
    const fs::path rel = p.lexically_relative(options.source_dir);
    return (rel.empty() || *rel.begin() == "..") ? p.string() : rel.string();
  };
  const std::vector<Job> jobs = make_jobs(options, catalogue, shown);
  const std::size_t n_mutants = catalogue.size();
  const std::size_t n_solutions = jobs.size() - n_mutants;

  out << "attnlab mutants: " << catalogue.size() << " mutants (" << shown(dir) << "), " << n_solutions
      << " model solutions; seed " << options.grade.run.seed << ", " << options.grade.run.cases
      << " cases per property, " << std::max(1, options.jobs) << " at a time\n\n";
  out.flush();
  const auto t0 = Clock::now();
  const std::vector<Outcome> outcomes = grade_all(options, jobs, out);
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();

  Tally tally;
  print_kill_matrix(out, jobs, outcomes);
  const MutantCounts counts = print_mutants(out, options, jobs, outcomes, n_mutants, tally);
  const int clean = print_solutions(out, jobs, outcomes, n_mutants, tally);
  print_sizes(out, counts.sizes, tally);
  print_diagnosis_cost(out, outcomes, n_mutants);

  std::ostringstream secs;
  secs << std::fixed << std::setprecision(0) << seconds;
  out << "\n" << n_mutants << " mutants: " << counts.caught << " caught, " << counts.by_declared
      << " by their declared property; " << n_solutions << " solutions: " << clean << " clean; seed "
      << options.grade.run.seed << ", " << options.grade.run.cases << " cases, " << secs.str() << " s\n";
  if (tally.problems.empty()) {
    out << "OK: every mutant caught, every solution clean\n";
  } else {
    out << "PROBLEMS (" << tally.problems.size() << "):\n";
    for (const auto& p : tally.problems) out << "  " << p << "\n";
  }
  if (tally.infrastructure > 0) return 2;
  return tally.problems.empty() ? 0 : 1;
}

}  // namespace attn::grader

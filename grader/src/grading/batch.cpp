// Grading many submissions in parallel, one forked grader per submission.
#include "grading/batch.hpp"
#include "grading/gradebook.hpp"
#include "grading/row_signature.hpp"
#include "grading/scoring_rules.hpp"
#include "exercises/exercise.hpp"
#include "attn/grader/paths.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include <nlohmann/json.hpp>

#include "grading/out_folder.hpp"
#include "sandbox/atomic_file.hpp"
#include "grading/student_names.hpp"
#include "report/junit_report.hpp"
#include "report/prairielearn_json.hpp"
#include "report/results_json.hpp"
#include "report/scoring.hpp"
#include "submission/submission.hpp"
#include "submission/wrong_language.hpp"
#include "sandbox/memory_cgroup.hpp"
#include "sandbox/python_finder.hpp"
#include "sandbox/temp_dir.hpp"
#include "report/text_report.hpp"
#include "exercises/listed.hpp"

namespace attn::grader {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

/// Writes its text to two streams (the report to stdout and to a file).
class TeeBuf : public std::streambuf {
 public:
  TeeBuf(std::streambuf* a, std::streambuf* b) : a_(a), b_(b) {}

 protected:
  int overflow(int c) override {
    if (c == traits_type::eof()) return traits_type::not_eof(c);
    const auto ch = traits_type::to_char_type(c);
    if (a_->sputc(ch) == traits_type::eof() || (b_ && b_->sputc(ch) == traits_type::eof()))
      return traits_type::eof();
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    a_->sputn(s, n);
    if (b_) b_->sputn(s, n);
    return n;
  }
  int sync() override { return (a_->pubsync() == 0 && (!b_ || b_->pubsync() == 0)) ? 0 : -1; }

 private:
  std::streambuf* a_;
  std::streambuf* b_;
};

std::string first_line(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  return line.size() > 300 ? line.substr(0, 300) + "..." : line;
}

/// The first line that says "error" (a compiler's first error), else the
/// first line (for a link error: the hint above the linker's messages;
/// collect2's "error: ld returned 1 exit status" says nothing).
std::string first_error_line(const std::string& s) {
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line))
    if (line.find("error") != std::string::npos &&
        line.find("ld returned") == std::string::npos)
      return first_line(line);
  return first_line(s);
}

/// Writes a submission's three report files (sandbox/atomic_file.hpp: each whole).
/// Empty: written; else why not, as a clause for the row's note.
std::string write_reports(const fs::path& out_dir, const std::string& name, const std::string& text,
                          const GradeResult* r) {
  const std::string stem = report_stem(name);
  const fs::path dir = out_dir / kReportsFolder;
  std::vector<std::pair<fs::path, std::string>> files;
  if (r) {
    files.push_back({dir / (stem + ".results.json"), dump_json(results_json(*r))});
    files.push_back({dir / (stem + ".junit.xml"), junit_xml({r})});
  }
  files.push_back({dir / (stem + ".txt"), text});
  try {
    write_files_atomically(files);
    return {};
  } catch (const std::exception& e) {
    return e.what();
  }
}

/// Runs in the forked child: grades input k, writes its reports and leaves
/// its row in rows_dir.
[[noreturn]] void child_main(const BatchOptions& options, std::size_t k, int slot,
                             const fs::path& rows_dir, pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(2);
  int code = 2;
  {
    const BatchInput& in = options.inputs[k];
    GradeOptions o = options.base;
    o.file = in.file;
    o.display_name = in.name;
    o.slot = slot;
    if (!in.exercise.empty()) o.exercise = in.exercise;
    if (in.answers) o.answers = in.answers;
    o.helpers = in.helpers;
    o.confine_to = in.root;
    o.notes.insert(o.notes.end(), in.notes.begin(), in.notes.end());
    o.whole_exercise = true;  // a class: the exercise's full maximum (class_folder.hpp)
    const auto start = Clock::now();
    std::ostringstream text;
    SummaryRow row;
    std::optional<GradeResult> result;
    try {
      result = grade_and_report(o, text, ReportFiles{});
      const GradeResult& r = *result;
      if (r.status == GradeResult::Status::usage_error ||
          r.status == GradeResult::Status::infrastructure_error)
        text << "attnlab: could not grade " << in.name << ": " << r.message << "\n";
      row = summary_row(in.name, r);
    } catch (const std::exception& e) {
      row.file = in.name;
      row.status = "error";
      row.note = std::string("grader error: ") + e.what();
      text << "attnlab: " << row.note << "\n";
    }
    if (!in.refused.empty()) {  // links, devices of the student's folder (class_folder.hpp)
      row.note += (row.note.empty() ? "" : "; ") + in.refused;
      text << "attnlab: note: " << in.refused << "\n";
      if (result) result->refused = in.refused;  // in its results.json and JUnit too
    }
    row.report = report_path(in.name);
    row.student = in.student.empty() ? in.name : in.student;
    row.choice = in.choice;
    row.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    row.graded_at = utc_now();
    row.version = paths::version;
    row.settings_hash = settings_hash(options.settings);
    row.seed = options.base.run.seed;
    if (const std::string why = write_reports(options.out_dir, in.name, text.str(),
                                              result ? &*result : nullptr);
        !why.empty()) {
      row.note += (row.note.empty() ? "" : "; ") + std::string("its reports are not written: ") + why;
      row.exit_code = 2;
    }
    try {
      write_file_atomically(rows_dir / (std::to_string(k) + ".json"),
                            dump_json(summary_row_json(row)));
    } catch (const std::exception&) {
      // The parent finds no row and says so.
    }
    code = row.exit_code;
  }
  std::cout.flush();
  std::cerr.flush();
  _exit(code);
}

/// The name an input's reports are written under (students/<stem>): a
/// student with no submission is reported under the student's name.
std::string report_name(const BatchInput& in) {
  if (in.no_submission.empty() || in.student.empty()) return in.name;
  return in.student;
}

/// The row of a student who handed in nothing gradable (BatchInput::no_submission),
/// and its one-line text report. Its exercise is the fixed one, if any.
SummaryRow no_submission_row(const BatchOptions& options, const BatchInput& in) {
  SummaryRow row;
  row.file = in.name;
  row.student = report_name(in);
  row.exercise = in.exercise;
  row.status = in.unreadable ? "not gradable" : "no submission";
  row.note = in.no_submission;
  row.exit_code = 1;
  row.report = report_path(row.student);
  row.graded_at = utc_now();
  row.version = paths::version;
  row.settings_hash = settings_hash(options.settings);
  row.seed = options.base.run.seed;
  if (!row.exercise.empty()) {
    try {
      row.max_score = exercise_maximum(load_exercise(row.exercise), options.base.config.get());
    } catch (const std::exception&) {
    }
  }
  const std::string details =
      (in.unreadable ? "not gradable: " : "no submission: ") + in.no_submission +
      (in.unreadable ? "; no grade until it is readable\n" : "; it counts 0 points\n");
  const std::string text = "attnlab: " + row.student + ": " + details;
  // Its results.json and JUnit say why too (a refused link, FIFO, device:
  // class_folder.cpp top_level_refusal, walk_student), as a submission not gradable.
  GradeResult r;
  r.status = GradeResult::Status::not_gradable;
  r.exercise = row.exercise;
  r.header.submission = row.student;
  r.max_score = row.max_score;
  r.not_gradable_headline = in.unreadable ? "cannot be read (permission denied)"
                                           : "was not found (nothing attnlab grades was handed in)";
  r.details = details;
  if (const std::string why = write_reports(options.out_dir, row.student, text, &r);
      !why.empty()) {
    row.note += "; its report is not written: " + why;
    row.exit_code = 2;
  }
  return row;
}

/// The exercise of the no-submission rows that have none (no exercise was
/// fixed): the class's exercises are those the configuration's "exercises"
/// names when it names several (docs/MANUAL.md, "Grading a class": the
/// gradebook's columns), else the ones graded (in `rows` and `book`). The
/// class's only exercise is the row's, with its maximum; when the class has
/// several or none, it stays unknown and the note says which or how to fix
/// it. (A shard or a regrade that happens to hold work of one configured
/// exercise only still counts an empty folder out of all of them.)
void no_submission_exercise(std::vector<SummaryRow>& rows, const Gradebook& book,
                            const TeacherConfig* config) {
  std::set<std::string> exercises;
  if (config && config->exercises.size() > 1)
    for (const auto& [id, overrides] : config->exercises) exercises.insert(id);
  else
    for (const std::vector<SummaryRow>* list : {&std::as_const(rows), &book.submissions})
      for (const auto& s : *list)
        if (s.status != "no submission" && !s.exercise.empty()) exercises.insert(s.exercise);
  for (auto& r : rows) {
    if (r.status != "no submission" || !r.exercise.empty()) continue;
    if (exercises.size() == 1) {
      r.exercise = *exercises.begin();
      try {
        r.max_score = exercise_maximum(load_exercise(r.exercise), config);
      } catch (const std::exception&) {
      }
      r.note += " (counted out of " + r.exercise + "'s maximum: the only exercise graded here)";
    } else {
      const std::string which = listed({exercises.begin(), exercises.end()});
      r.note += which.empty()
                    ? std::string(" (0 of an unknown maximum: no exercise is fixed and no student "
                                  "handed in one; give --exercise or the configuration's "
                                  "\"exercise\" to count it out of that exercise's maximum)")
                    : " (0 of each of the class's exercises: " + which + ")";
    }
  }
}

/// The first lines of a batch: how many, how many at a time, who handed in nothing.
void announce(const BatchOptions& options, std::ostream& progress) {
  const std::size_t n = options.inputs.size();
  std::string nothing;
  std::size_t nothing_count = 0;
  for (const auto& in : options.inputs)
    if (!in.no_submission.empty() && !in.unreadable && ++nothing_count <= 5)
      nothing += (nothing.empty() ? "" : ", ") + in.student;
  if (nothing_count > 5) nothing += ", ...";
  progress << "attnlab: grading " << n - nothing_count << " submission"
           << (n - nothing_count == 1 ? "" : "s") << ", " << std::max(1, options.jobs)
           << " at a time; reports in " << options.out_dir.string() << "\n";
  if (nothing_count > 0)
    progress << "attnlab: " << nothing_count << " student" << (nothing_count == 1 ? "" : "s")
             << " handed in nothing to grade (" << nothing << "): row"
             << (nothing_count == 1 ? "" : "s") << " \"no submission\", 0 points\n";
  progress.flush();
}

std::string describe_status(const SummaryRow& r) {
  if (r.status == "graded")
    return "graded, " + format_points(r.score) + " / " + format_points(r.max_score) +
           (r.note.empty() ? "" : " (" + r.note + ")");
  return r.status + (r.note.empty() ? "" : ": " + r.note);
}

}  // namespace

std::string no_submission_message(const std::vector<fs::path>& paths,
                                  const std::vector<std::string>& ignored) {
  const std::string kinds =
      "a submission is a .py, .cpp or answers .json file, or an executable speaking "
      "attnlab-protocol/1";
  std::vector<std::string> names;
  for (const auto& p : paths) names.push_back(p.string());
  const std::string where = listed(names);
  const bool one_folder = paths.size() == 1;
  if (ignored.empty())
    return "no submission to grade: " + std::string(one_folder ? "the folder " : "") + where +
           (one_folder ? " is empty" : " hold no files") + " (" + kinds +
           "; hidden files are skipped)";
  return "no submission to grade in " + where + ": its " + std::to_string(ignored.size()) +
         " file" + (ignored.size() == 1 ? " is" : "s are") + " not of a kind attnlab grades (" +
         kinds + ")";
}

GradeResult grade_and_report(const GradeOptions& options, std::ostream& text,
                             const ReportFiles& files) {
  // The text report, kept in memory and written whole at the end.
  std::ostringstream copy;
  TeeBuf tee(text.rdbuf(), files.text ? copy.rdbuf() : nullptr);
  std::ostream both(&tee);
  const auto started = Clock::now();
  if (const std::string note = wrong_language_note(options.file); !note.empty())
    both << "attnlab: note: " << note << "\n";
  GradeResult r = grade_file(options, both);
  // The whole grading, compile and start included (Gradescope's execution_time).
  r.seconds = std::max(r.seconds, std::chrono::duration<double>(Clock::now() - started).count());
  if (!options.refused.empty()) r.refused = options.refused;
  if (const std::string note = wrong_language_note(options.file);
      !note.empty() && r.status == GradeResult::Status::not_gradable)
    r.details = "note: " + note + "\n\n" + r.details;
  both.flush();
  complete_scoring(r, options);
  if (files.text && (r.status == GradeResult::Status::usage_error ||
                     r.status == GradeResult::Status::infrastructure_error))
    copy << "attnlab: " << r.message << "\n";
  try {
    if (files.text) write_file_creating_folder(*files.text, copy.str());
  } catch (const std::exception& e) {
    std::cerr << "attnlab: " << e.what() << "\n";
  }
  try {
    if (files.results_json) write_results_json(*files.results_json, r);
  } catch (const std::exception& e) {
    std::cerr << "attnlab: " << e.what() << "\n";
  }
  try {
    if (files.prairielearn) write_prairielearn_json(*files.prairielearn, r);
  } catch (const std::exception& e) {
    std::cerr << "attnlab: " << e.what() << "\n";
  }
  try {
    if (files.junit) write_junit(*files.junit, r);
  } catch (const std::exception& e) {
    std::cerr << "attnlab: " << e.what() << "\n";
  }
  return r;
}

SummaryRow summary_row(const std::string& name, const GradeResult& r) {
  SummaryRow row;
  row.file = name;
  row.exercise = r.header.exercise.empty() ? r.exercise : r.header.exercise;
  row.exit_code = r.exit_code();
  row.max_score = r.max_score;
  switch (r.status) {
    case GradeResult::Status::graded:
      row.status = "graded";
      row.score = r.score;
      for (const auto& it : r.items) {
        if (it.counted) row.points.push_back({it.id, {it.points, it.max_points}});
        // The misconceptions the diagnosis stage named for the failure
        // (results.json's extra_data.misconceptions); a hint read from the
        // failure's shape (a timeout, a refused valid input) is a fact, not one.
        if (it.diagnosis)
          for (const auto& key : misconception_keys(*it.diagnosis))
            if (std::find(row.misconceptions.begin(), row.misconceptions.end(), key) ==
                row.misconceptions.end())
              row.misconceptions.push_back(key);
      }
      if (r.failed > 0) row.note = std::to_string(r.failed) + " failed";
      if (!r.missing.empty())
        row.note += (row.note.empty() ? "" : "; ") + std::string("missing ") + r.missing;
      for (const auto& [id, max] : r.missing_items)  // 0 of its maximum, as the note says
        if (std::none_of(row.points.begin(), row.points.end(), [&](const auto& p) { return p.first == id; }))
          row.points.push_back({id, {0.0, max}});
      break;
    case GradeResult::Status::not_gradable:
      row.status = "not gradable";
      row.note = "the submission " + r.not_gradable_headline;
      if (const std::string d = first_error_line(r.details); !d.empty()) row.note += ": " + d;
      break;
    case GradeResult::Status::usage_error:
    case GradeResult::Status::infrastructure_error:
      row.status = "error";
      row.note = first_line(r.message);
      break;
  }
  // The report's notes (the attempt graded, what of a notebook was skipped,
  // a data file not beside the code): in the gradebook's note too.
  for (const auto& n : r.header.notes)
    if (row.note.find(n) == std::string::npos) row.note += (row.note.empty() ? "" : "; ") + n;
  return row;
}

namespace {

/// The rows of a run as they come in, and the gradebook rewritten each time
/// a student's files are all graded (batch.hpp).
class Recorder {
 public:
  Recorder(const BatchOptions& options, Gradebook base, std::vector<std::string> graded)
      : options_(options), base_(std::move(base)), graded_(std::move(graded)),
        rows_(options.inputs.size()) {
    for (const auto& in : options.inputs) ++remaining_[who(in)];
    // The gradebook's id (gradebook.hpp ShardRecord): kept, or made now.
    if (base_.shard.id.empty()) base_.shard.id = new_gradebook_id();
    if (std::find(base_.shard.ids.begin(), base_.shard.ids.end(), base_.shard.id) == base_.shard.ids.end())
      base_.shard.ids.push_back(base_.shard.id);
  }

  /// Input k's row; its student is whole when it was the last of theirs.
  void add(std::size_t k, SummaryRow row) {
    row.shard_id = base_.shard.id;
    try {
      record_report_digests(row, options_.out_dir);
    } catch (const std::exception& e) {
      row.note += (row.note.empty() ? "" : "; ") + std::string(e.what());
      row.exit_code = 2;
    }
    rows_[k] = std::move(row);
    if (--remaining_[who(options_.inputs[k])] == 0) {
      graded_.push_back(who(options_.inputs[k]));
      dirty_ = true;
    }
  }
  const SummaryRow& row(std::size_t k) const { return rows_[k]; }
  const std::vector<SummaryRow>& rows() const { return rows_; }
  bool dirty() const { return dirty_; }

  /// Writes the gradebook: the rows of the whole students over the base.
  /// Throws std::runtime_error when it cannot be written (it is then as before).
  Gradebook save(bool complete) {
    std::vector<SummaryRow> fresh_rows;
    for (std::size_t k = 0; k < rows_.size(); ++k)
      if (remaining_[who(options_.inputs[k])] == 0) fresh_rows.push_back(rows_[k]);
    no_submission_exercise(fresh_rows, base_, options_.base.config.get());
    // Signed last: the row as written (row_signature.hpp).
    if (!options_.signing_key.empty())
      for (auto& r : fresh_rows) r.signature = row_signature(r, options_.signing_key);
    Gradebook fresh;
    fresh.submissions = std::move(fresh_rows);
    fresh.seed = options_.base.run.seed;
    fresh.cases = options_.base.run.cases;
    fresh.settings = options_.settings;
    fresh.elapsed_seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    fresh.run.started_at = started_at_;
    fresh.run.complete = complete;
    fresh.run.settings_hash = settings_hash(options_.settings);
    if (!complete) fresh.run.graded = graded_;
    fresh.anonymise_salt = options_.anonymise_salt;
    Gradebook book = update_gradebook(base_, fresh);
    // The class's exercises and their fixed maxima (gradebook.hpp), over every row kept.
    book.columns = class_columns(options_.settings.value("exercise", ""), options_.base.config.get(),
                                 book.submissions, options_.base.only_property);
    book.students = student_rows(book.submissions, book.columns);
    sign_shard(book, options_.signing_key);  // its student list, its rows' signatures
    write_gradebook(options_.out_dir, book);
    dirty_ = false;
    return book;
  }
  void set_started_at(std::string at) { started_at_ = std::move(at); }

 private:
  static std::string who(const BatchInput& in) { return in.student.empty() ? in.name : in.student; }
  const BatchOptions& options_;
  Gradebook base_;
  std::vector<std::string> graded_;
  std::vector<SummaryRow> rows_;
  std::map<std::string, int> remaining_;
  bool dirty_ = false;
  std::string started_at_ = utc_now();
  Clock::time_point start_ = Clock::now();
};

/// Resuming an interrupted run (batch.hpp): drops from `options.inputs` the
/// students `base.run` finished, when its settings are these; returns them.
std::vector<std::string> resume(const Gradebook& base, BatchOptions& options, std::ostream& progress) {
  if (base.run.complete || base.run.started_at.empty()) return {};
  const std::string dir = options.out_dir.string();
  if (options.restart) {
    progress << "attnlab: the run of " << base.run.started_at << " into " << dir
             << " was interrupted; --restart: grading every student given again\n";
    return {};
  }
  if (base.run.settings_hash != settings_hash(options.settings)) {
    progress << "attnlab: the run of " << base.run.started_at << " into " << dir
             << " was interrupted, but with other settings (seed, cases, exercise, limits or "
                "configuration): not resumed, grading every student given\n";
    return {};
  }
  const std::set<std::string> finished(base.run.graded.begin(), base.run.graded.end());
  const std::size_t before = options.inputs.size();
  std::erase_if(options.inputs, [&](const BatchInput& in) {
    return finished.count(in.student.empty() ? in.name : in.student) > 0;
  });
  progress << "attnlab: resuming the interrupted run of " << base.run.started_at << " into " << dir
           << ": " << before - options.inputs.size() << " file(s) of the " << finished.size()
           << " student(s) it graded keep their rows; grading the other " << options.inputs.size()
           << " (--restart grades them all again)\n";
  return base.run.graded;
}

/// Why a run into a gradebook that keeps rows (those of the students not
/// graded now) is refused, else empty (batch.hpp grade_batch): a kept row
/// graded with other settings (its settings_hash), or summary-anonymous.csv
/// kept without its salt (none given, or ids that are not the salt's).
/// A run that regrades every student of the gradebook keeps no row.
std::string kept_rows_refusal(const Gradebook& base, const BatchOptions& options) {
  const auto who = [](const std::string& student, const std::string& file) {
    return student.empty() ? file : student;
  };
  std::set<std::string> regraded, kept, other;
  std::set<std::string> hashes;
  for (const auto& in : options.inputs) regraded.insert(who(in.student, in.name));
  const std::string now = settings_hash(options.settings);
  for (const auto& r : base.submissions) {
    const std::string w = who(r.student, r.file);
    if (regraded.count(w)) continue;
    kept.insert(w);
    if (!r.settings_hash.empty() && r.settings_hash != now) {
      other.insert(w);
      hashes.insert(r.settings_hash);
    }
  }
  const std::string dir = options.out_dir.string();
  const std::string how =
      " Give the settings of the gradebook's run (the same --config, --seed, --cases, "
      "--exercise and limits), or grade into a new --out; a regrade of every student, which "
      "replaces every row, is allowed. Nothing was changed.";
  if (!other.empty()) {
    std::string names;
    std::size_t k = 0;
    for (const auto& w : other) {
      if (++k > 5) {
        names += ", ...";
        break;
      }
      names += (k == 1 ? "" : ", ") + w;
    }
    const std::string what =
        hashes.count(settings_hash(base.settings)) > 0 && !base.settings.empty()
            ? "this run vs the gradebook: " + settings_differences(base.settings, options.settings)
            : "their settings_hash " + *hashes.begin() + ", this run's " + now;
    return dir + " keeps the rows of " + std::to_string(other.size()) + " student(s) (" + names +
           ") graded with other settings than this run's (" + what +
           "): regrading only some students would put rows of two settings in one gradebook "
           "and change the columns and maxima of the kept rows." +
           how;
  }
  const fs::path anonymous = options.out_dir / "summary-anonymous.csv";
  std::error_code ec;
  if (kept.empty() || !fs::exists(anonymous, ec)) return {};
  if (options.anonymise_salt.empty())
    return dir + " holds summary-anonymous.csv, and this run, which keeps the rows of " +
           std::to_string(kept.size()) +
           " student(s), has no anonymisation salt (it would delete that file): give the same "
           "--anonymise-salt or the configuration holding it, or grade into a new --out. "
           "Nothing was changed.";
  std::set<std::string> ids;
  std::ifstream in(anonymous);
  for (std::string line; std::getline(in, line);) ids.insert(line.substr(0, line.find(',')));
  for (const auto& w : kept)
    if (!ids.count(anonymous_id(options.anonymise_salt, w)))
      return dir + "/summary-anonymous.csv was made with another anonymisation salt than this "
                   "run's (the id of " + w + " under it is not there): give the same "
                   "--anonymise-salt or the configuration holding it, or grade into a new "
                   "--out. Nothing was changed.";
  return {};
}

/// Removes what killed runs left (temp_dir.hpp, memory_cgroup.hpp) and says so.
void remove_leftovers(std::ostream& progress) {
  const auto dirs = remove_leftover_temp_dirs();
  const std::size_t groups = MemoryCgroup::remove_leftovers();
  if (!dirs.empty() || groups > 0)
    progress << "attnlab: removed what earlier runs that were killed left behind: " << dirs.size()
             << " temporary folder(s)" << (dirs.empty() ? "" : " (" + dirs.front().string() + (dirs.size() > 1 ? ", ..." : "") + ")")
             << " and " << groups << " memory cgroup(s)\n";
}

/// The row of input k whose child grader ended (`st`) without leaving one.
SummaryRow lost_row(const BatchOptions& options, std::size_t k, int st, bool killed) {
  SummaryRow row;
  row.file = options.inputs[k].name;
  row.student = options.inputs[k].student.empty() ? row.file : options.inputs[k].student;
  row.graded_at = utc_now();
  row.version = paths::version;
  row.settings_hash = settings_hash(options.settings);
  row.seed = options.base.run.seed;
  row.status = "error";
  row.exit_code = 2;
  row.report = report_path(options.inputs[k].name);
  row.note = killed ? "the grader was stopped after " +
                          std::to_string(options.child_timeout.count() / 1000) + " s"
             : WIFSIGNALED(st) ? "the grader died with signal " + std::to_string(WTERMSIG(st))
                               : "the grader ended without a result";
  return row;
}

/// The table and overview printed at the end of a batch.
void print_table(const std::vector<SummaryRow>& rows, const Gradebook& book,
                 const BatchOptions& options, std::ostream& progress) {
  std::size_t width = 4;
  for (const auto& r : rows) width = std::max(width, r.file.size());
  progress << "\n";
  std::size_t listed = 0;
  for (const auto& r : rows) {
    if (++listed > 100) {
      progress << "  ... and " << rows.size() - 100 << " more (summary.csv)\n";
      break;
    }
    std::string f = r.file;
    f.resize(width, ' ');
    progress << "  " << f << "  " << (r.exercise.empty() ? "--" : r.exercise) << "  "
             << describe_status(r) << "\n";
  }
  progress << "\n" << overview_text(book);
  progress << "\ngradebook: " << (options.out_dir / "summary.csv").string() << ", "
           << (options.out_dir / "summary.json").string() << ", "
           << (options.out_dir / "summary.txt").string() << "; reports in "
           << (options.out_dir / kReportsFolder).string();
  if (options.junit) progress << "; JUnit: " << options.junit->string();
  progress << "\n";
}

}  // namespace

namespace {

/// The forked graders of a batch: at most `jobs` at once, each on a slot.
class Graders {
 public:
  Graders(const BatchOptions& options, Recorder& record, std::ostream& progress)
      : options_(options), record_(record), progress_(progress),
        slot_busy_(static_cast<std::size_t>(std::max(1, options.jobs)), false) {}

  bool finished() const { return done_ == options_.inputs.size(); }

  /// Starts inputs while a slot is free (a no-submission row needs none).
  void fill() {
    const std::size_t n = options_.inputs.size();
    while (running_.size() < slot_busy_.size() && next_ < n) {
      const std::size_t k = next_++;
      if (const BatchInput& in = options_.inputs[k]; !in.no_submission.empty()) {
        finish(k, no_submission_row(options_, in));
        continue;
      }
      const int slot = static_cast<int>(
          std::find(slot_busy_.begin(), slot_busy_.end(), false) - slot_busy_.begin());
      std::cout.flush();
      std::cerr.flush();
      progress_.flush();
      const pid_t pid = fork();
      if (pid == 0) child_main(options_, k, slot, rows_dir_.path(), parent_);
      if (pid < 0) {
        SummaryRow row = lost_row(options_, k, 0, false);
        row.note = "cannot fork a grader process";
        finish(k, std::move(row));
        continue;
      }
      slot_busy_[static_cast<std::size_t>(slot)] = true;
      running_.push_back({pid, k, slot, Clock::now()});
    }
  }

  /// Takes the row of a grader that ended; false when none has.
  bool reap() {
    int st = 0;
    const pid_t p = waitpid(-1, &st, WNOHANG);
    if (p <= 0) return false;
    auto it = std::find_if(running_.begin(), running_.end(), [&](const Running& r) { return r.pid == p; });
    if (it == running_.end()) return true;  // not ours (the sandbox self-test is long done)
    const std::size_t k = it->index;
    SummaryRow row;
    try {
      std::ifstream in(rows_dir_.path() / (std::to_string(k) + ".json"));
      if (!in) throw std::runtime_error("no result");
      row = summary_row_from_json(nlohmann::json::parse(in));
    } catch (const std::exception&) {
      row = lost_row(options_, k, st, it->killed);
      const std::string why = write_reports(options_.out_dir, options_.inputs[k].name,
                                            "attnlab: " + row.note + "\n", nullptr);
      if (!why.empty()) row.note += "; its report is not written: " + why;
    }
    slot_busy_[static_cast<std::size_t>(it->slot)] = false;
    running_.erase(it);
    finish(k, std::move(row));
    return true;
  }

  /// Kills the graders past BatchOptions::child_timeout.
  void enforce_timeout() {
    if (options_.child_timeout.count() <= 0) return;
    for (auto& r : running_)
      if (!r.killed && Clock::now() - r.start > options_.child_timeout) {
        ::kill(r.pid, SIGKILL);
        r.killed = true;
      }
  }

  /// Kills and reaps every running grader.
  void stop() {
    for (const auto& r : running_) ::kill(r.pid, SIGKILL);
    for (const auto& r : running_) {
      int st = 0;
      (void)waitpid(r.pid, &st, 0);
    }
    running_.clear();
  }

 private:
  struct Running {
    pid_t pid;
    std::size_t index;
    int slot;
    Clock::time_point start;
    bool killed = false;
  };

  void finish(std::size_t k, SummaryRow row) {
    record_.add(k, std::move(row));
    finished_[k] = true;
    release_scratch(k);
    const SummaryRow& r = record_.row(k);
    progress_ << "[" << ++done_ << "/" << options_.inputs.size() << "] " << r.file << ": "
              << describe_status(r) << "\n";
    if (!r.choice.empty()) progress_ << "        " << r.choice << "\n";
    progress_.flush();
  }

  /// Removes input k's scratch folder (BatchInput::scratch) once no input
  /// naming it is left to grade.
  void release_scratch(std::size_t k) const {
    const fs::path& scratch = options_.inputs[k].scratch;
    if (scratch.empty()) return;
    for (std::size_t j = 0; j < options_.inputs.size(); ++j)
      if (!finished_[j] && options_.inputs[j].scratch == scratch) return;
    std::error_code ec;
    fs::remove_all(scratch, ec);
  }

  const BatchOptions& options_;
  Recorder& record_;
  std::ostream& progress_;
  TempDir rows_dir_{"attnlab-batch-"};
  std::vector<Running> running_;
  std::vector<bool> slot_busy_;
  std::vector<bool> finished_ = std::vector<bool>(options_.inputs.size(), false);
  std::size_t next_ = 0, done_ = 0;
  pid_t parent_ = getpid();
};

}  // namespace

int grade_batch(const BatchOptions& given, std::ostream& progress) {
  std::optional<OutLock> lock;
  Gradebook base;
  try {
    lock.emplace(given.out_dir, "attnlab grade");
    base = read_gradebook(given.out_dir);
  } catch (const std::exception& e) {
    std::cerr << "attnlab: " << e.what() << "\n";
    return 2;
  }
  if (const std::string why = kept_rows_refusal(base, given); !why.empty()) {
    std::cerr << "attnlab: " << why << "\n";
    return 2;
  }
  remove_leftovers(progress);
  BatchOptions options = given;
  const std::vector<std::string> graded = resume(base, options, progress);
  Recorder record(options, base, graded);
  if (!base.run.complete && !graded.empty()) record.set_started_at(base.run.started_at);
  announce(options, progress);
  // find_python remembers the interpreter it found for the rest of the
  // process; probed here, before the forks, every grading process inherits
  // it instead of probing again (one NumPy import per Python submission).
  if (std::any_of(options.inputs.begin(), options.inputs.end(), [](const BatchInput& in) {
        return in.no_submission.empty() && detect_language(in.file) == Language::python;
      }))
    find_python(options.base.launch.python);
  Graders graders(options, record, progress);
  while (!graders.finished()) {
    graders.fill();
    const bool reaped = graders.reap();
    if (record.dirty() && !graders.finished()) {
      try {
        record.save(false);
      } catch (const std::exception& e) {
        graders.stop();
        std::cerr << "attnlab: " << e.what() << "; stopped: the gradebook is as it was before "
                 << "this write (rerun to resume once it can be written)\n";
        return 2;
      }
    }
    if (reaped) continue;
    graders.enforce_timeout();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }

  int worst = 0;
  for (const auto& r : record.rows()) worst = std::max(worst, r.exit_code);
  Gradebook book;
  try {
    book = record.save(true);
    if (options.junit) {
      std::vector<fs::path> parts;
      for (const auto& in : options.inputs)
        parts.push_back(options.out_dir / kReportsFolder / (report_stem(report_name(in)) + ".junit.xml"));
      merge_junit_files(parts, *options.junit);
    }
  } catch (const std::exception& e) {
    std::cerr << "attnlab: " << e.what() << "\n";
    return 2;
  }
  print_table(record.rows(), book, options, progress);
  return worst;
}

}  // namespace attn::grader

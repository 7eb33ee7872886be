// Grading many submissions in parallel, one forked grader per submission.
#include "grading/batch.hpp"
#include "grading/gradebook.hpp"
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

#include "report/junit_report.hpp"
#include "report/prairielearn_json.hpp"
#include "report/results_json.hpp"
#include "report/scoring.hpp"
#include "submission/submission.hpp"
#include "submission/wrong_language.hpp"
#include "sandbox/temp_dir.hpp"
#include "report/text_report.hpp"

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

/// Runs in the forked child: grades input k and leaves its row in rows_dir.
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
    o.whole_exercise = true;  // a class: the exercise's full maximum (class_folder.hpp)
    const auto start = Clock::now();
    const std::string stem = report_stem(in.name);
    std::ofstream text(options.out_dir / (stem + ".txt"));
    ReportFiles files;
    files.results_json = options.out_dir / (stem + ".results.json");
    files.junit = options.out_dir / (stem + ".junit.xml");
    SummaryRow row;
    try {
      const GradeResult r = grade_and_report(o, text, files);
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
    row.report = stem + ".txt";
    row.student = in.student.empty() ? in.name : in.student;
    row.choice = in.choice;
    if (!in.refused.empty()) {  // links, devices of the student's folder (class_folder.hpp)
      row.note += (row.note.empty() ? "" : "; ") + in.refused;
      text << "attnlab: note: " << in.refused << "\n";
    }
    row.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    row.graded_at = utc_now();
    row.version = paths::version;
    text.close();
    const fs::path tmp = rows_dir / (std::to_string(k) + ".json.tmp");
    {
      std::ofstream out(tmp);
      out << dump_json(summary_row_json(row));
    }
    fs::rename(tmp, rows_dir / (std::to_string(k) + ".json"));
    code = row.exit_code;
  }
  std::cout.flush();
  std::cerr.flush();
  _exit(code);
}

/// The row of a student who handed in nothing gradable (BatchInput::no_submission),
/// and its one-line text report. Its exercise is the fixed one, if any.
SummaryRow no_submission_row(const BatchOptions& options, const BatchInput& in) {
  SummaryRow row;
  row.file = in.name;
  row.student = in.student.empty() ? in.name : in.student;
  row.exercise = in.exercise;
  row.status = "no submission";
  row.note = in.no_submission;
  row.exit_code = 1;
  row.report = report_stem(row.student) + ".txt";
  row.graded_at = utc_now();
  row.version = paths::version;
  if (!row.exercise.empty()) {
    try {
      row.max_score = exercise_maximum(load_exercise(row.exercise), options.base.config.get());
    } catch (const std::exception&) {
    }
  }
  std::ofstream(options.out_dir / row.report)
      << "attnlab: " << row.student << ": no submission: " << in.no_submission
      << "; it counts 0 points\n";
  return row;
}

/// The exercise of the no-submission rows that have none (no exercise was
/// fixed): the class's only graded exercise (in `rows` and `book`), with
/// its maximum; when the class has several or none, it stays unknown and
/// the note says how to fix it.
void no_submission_exercise(std::vector<SummaryRow>& rows, const Gradebook& book,
                            const TeacherConfig* config) {
  std::set<std::string> exercises;
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
      std::string which;
      std::size_t k = 0;
      for (const auto& e : exercises)
        which += (k++ == 0 ? "" : k == exercises.size() ? " and " : ", ") + e;
      r.note += std::string(" (0 of an unknown maximum: no exercise is fixed") +
                (which.empty() ? "" : " and the class's files answer " + which) +
                "; give --exercise or the configuration's \"exercise\" to count it out of that "
                "exercise's maximum)";
    }
  }
}

/// Removes input k's scratch folder (BatchInput::scratch) once no input
/// naming it is left to grade (`finished`).
void release_scratch(const std::vector<BatchInput>& inputs, const std::vector<bool>& finished,
                     std::size_t k) {
  const fs::path& scratch = inputs[k].scratch;
  if (scratch.empty()) return;
  for (std::size_t j = 0; j < inputs.size(); ++j)
    if (!finished[j] && inputs[j].scratch == scratch) return;
  std::error_code ec;
  fs::remove_all(scratch, ec);
}

std::string describe_status(const SummaryRow& r) {
  if (r.status == "graded")
    return "graded, " + format_points(r.score) + " / " + format_points(r.max_score) +
           (r.note.empty() ? "" : " (" + r.note + ")");
  return r.status + (r.note.empty() ? "" : ": " + r.note);
}

}  // namespace

std::string report_stem(const std::string& name) {
  std::string stem;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '/') {
      stem += "__";
    } else if (name[i] == '.' && (i == 0 || name[i - 1] == '/')) {
      stem += '_';  // no hidden files, no ".."
    } else {
      stem += name[i];
    }
  }
  return stem.empty() ? std::string("submission") : stem;
}

std::string no_submission_message(const std::vector<fs::path>& paths,
                                  const std::vector<std::string>& ignored) {
  const std::string kinds =
      "a submission is a .py, .cpp or answers .json file, or an executable speaking "
      "attnlab-protocol/1";
  std::string where;
  for (std::size_t k = 0; k < paths.size(); ++k)
    where += (k == 0 ? "" : k + 1 == paths.size() ? " and " : ", ") + paths[k].string();
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
  std::ofstream copy;
  if (files.text) {
    std::error_code ec;
    if (files.text->has_parent_path()) fs::create_directories(files.text->parent_path(), ec);
    copy.open(*files.text);
  }
  TeeBuf tee(text.rdbuf(), copy.is_open() ? copy.rdbuf() : nullptr);
  std::ostream both(&tee);
  if (const std::string note = wrong_language_note(options.file); !note.empty())
    both << "attnlab: note: " << note << "\n";
  GradeResult r = grade_file(options, both);
  if (const std::string note = wrong_language_note(options.file);
      !note.empty() && r.status == GradeResult::Status::not_gradable)
    r.details = "note: " + note + "\n\n" + r.details;
  both.flush();
  complete_scoring(r, options);
  if (copy.is_open() && (r.status == GradeResult::Status::usage_error ||
                         r.status == GradeResult::Status::infrastructure_error))
    copy << "attnlab: " << r.message << "\n";
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
  return row;
}

int grade_batch(const BatchOptions& options, std::ostream& progress) {
  std::error_code ec;
  fs::create_directories(options.out_dir, ec);
  if (ec) {
    progress << "attnlab: cannot create " << options.out_dir.string() << ": " << ec.message() << "\n";
    return 2;
  }
  const std::size_t n = options.inputs.size();
  const int jobs = std::max(1, options.jobs);
  const auto batch_start = Clock::now();
  std::string overview;
  TempDir rows_dir("attnlab-batch-");
  std::vector<SummaryRow> rows(n);
  std::vector<bool> finished(n, false);

  struct Running {
    pid_t pid;
    std::size_t index;
    int slot;
    Clock::time_point start;
    bool killed = false;
  };
  std::vector<Running> running;
  std::vector<bool> slot_busy(static_cast<std::size_t>(jobs), false);
  std::size_t next = 0, done = 0;
  const pid_t parent = getpid();

  std::string nothing;
  std::size_t nothing_count = 0;
  for (const auto& in : options.inputs)
    if (!in.no_submission.empty() && ++nothing_count <= 5)
      nothing += (nothing.empty() ? "" : ", ") + in.student;
  if (nothing_count > 5) nothing += ", ...";
  progress << "attnlab: grading " << n - nothing_count << " submission"
           << (n - nothing_count == 1 ? "" : "s") << ", " << jobs << " at a time; reports in "
           << options.out_dir.string() << "\n";
  if (nothing_count > 0)
    progress << "attnlab: " << nothing_count << " student" << (nothing_count == 1 ? "" : "s")
             << " handed in nothing to grade (" << nothing << "): row"
             << (nothing_count == 1 ? "" : "s") << " \"no submission\", 0 points\n";
  progress.flush();

  while (done < n) {
    while (running.size() < static_cast<std::size_t>(jobs) && next < n) {
      if (const BatchInput& in = options.inputs[next]; !in.no_submission.empty()) {
        rows[next] = no_submission_row(options, in);
        ++next;
        ++done;
        progress << "[" << done << "/" << n << "] " << rows[next - 1].file << ": "
                 << describe_status(rows[next - 1]) << "\n";
        continue;
      }
      const int slot = static_cast<int>(
          std::find(slot_busy.begin(), slot_busy.end(), false) - slot_busy.begin());
      std::cout.flush();
      std::cerr.flush();
      progress.flush();
      const pid_t pid = fork();
      if (pid == 0) child_main(options, next, slot, rows_dir.path(), parent);
      if (pid < 0) {
        rows[next] = SummaryRow{};
        rows[next].file = options.inputs[next].name;
        rows[next].student = options.inputs[next].student;
        rows[next].status = "error";
        rows[next].note = "cannot fork a grader process";
        ++next;
        ++done;
        continue;
      }
      slot_busy[static_cast<std::size_t>(slot)] = true;
      running.push_back({pid, next, slot, Clock::now()});
      ++next;
    }
    int st = 0;
    const pid_t p = waitpid(-1, &st, WNOHANG);
    if (p <= 0) {
      if (options.child_timeout.count() > 0) {
        for (auto& r : running)
          if (!r.killed && Clock::now() - r.start > options.child_timeout) {
            ::kill(r.pid, SIGKILL);
            r.killed = true;
          }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    auto it = std::find_if(running.begin(), running.end(), [&](const Running& r) { return r.pid == p; });
    if (it == running.end()) continue;  // not ours (the sandbox self-test is long done)
    const std::size_t k = it->index;
    SummaryRow row;
    const fs::path row_file = rows_dir.path() / (std::to_string(k) + ".json");
    try {
      std::ifstream in(row_file);
      if (!in) throw std::runtime_error("no result");
      row = summary_row_from_json(nlohmann::json::parse(in));
    } catch (const std::exception&) {
      row.file = options.inputs[k].name;
      row.student = options.inputs[k].student.empty() ? row.file : options.inputs[k].student;
      row.graded_at = utc_now();
      row.version = paths::version;
      row.status = "error";
      row.exit_code = 2;
      row.report = report_stem(options.inputs[k].name) + ".txt";
      row.note = it->killed ? "the grader was stopped after " +
                                  std::to_string(options.child_timeout.count() / 1000) + " s"
                 : WIFSIGNALED(st) ? "the grader died with signal " + std::to_string(WTERMSIG(st))
                                   : "the grader ended without a result";
    }
    rows[k] = row;
    finished[k] = true;
    release_scratch(options.inputs, finished, k);
    slot_busy[static_cast<std::size_t>(it->slot)] = false;
    running.erase(it);
    ++done;
    progress << "[" << done << "/" << n << "] " << row.file << ": " << describe_status(row) << "\n";
    if (!row.choice.empty()) progress << "        " << row.choice << "\n";
    progress.flush();
  }

  int worst = 0;
  for (const auto& r : rows) worst = std::max(worst, r.exit_code);
  try {
    const Gradebook base = read_gradebook(options.out_dir);
    no_submission_exercise(rows, base, options.base.config.get());
    Gradebook fresh;
    fresh.submissions = rows;
    fresh.seed = options.base.run.seed;
    fresh.cases = options.base.run.cases;
    fresh.elapsed_seconds = std::chrono::duration<double>(Clock::now() - batch_start).count();
    const Gradebook book = update_gradebook(base, fresh);
    write_gradebook(options.out_dir, book);
    overview = overview_text(book);
    if (options.junit) {
      std::vector<fs::path> parts;
      for (const auto& in : options.inputs)
        if (in.no_submission.empty())
          parts.push_back(options.out_dir / (report_stem(in.name) + ".junit.xml"));
      merge_junit_files(parts, *options.junit);
    }
  } catch (const std::exception& e) {
    progress << "attnlab: " << e.what() << "\n";
    return 2;
  }

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
  progress << "\n" << overview;
  progress << "\ngradebook: " << (options.out_dir / "summary.csv").string() << ", "
           << (options.out_dir / "summary.json").string() << ", "
           << (options.out_dir / "summary.txt").string();
  if (options.junit) progress << "; JUnit: " << options.junit->string();
  progress << "\n";
  return worst;
}

}  // namespace attn::grader

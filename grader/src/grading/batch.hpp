#pragma once
// Grading many submissions: `attnlab grade a.py b.cpp folder/ --out DIR`.
//
// Each submission is graded in a child process of its own (a fork of the
// grader: RapidCheck keeps per-process state, and one submission's grading
// cannot disturb another's), up to `jobs` at a time. Per submission, DIR
// gets students/<stem>.txt (the text report), students/<stem>.results.json
// (Gradescope) and students/<stem>.junit.xml, where <stem> is the
// submission's shown name escaped (student_names.hpp report_stem). DIR
// holds the gradebook (gradebook.hpp: summary.csv, summary.json,
// summary.txt), updated if DIR already had one.
// Which files are a student's submission: class_folder.hpp.
//
// One grader writes to DIR at a time (out_folder.hpp OutLock: a second one
// exits 2 at once), and every file there is replaced whole (written to a
// temporary, fsync'd, renamed; the reports first, the gradebook last). The
// gradebook is rewritten as each student's files are all graded, so a run
// stopped any way (kill -9, a power cut) leaves every finished student's
// row beside its reports, and summary.json's "run" says it did not
// complete. Grading into DIR again with the same settings resumes that run:
// the students it finished keep their rows and the others are graded
// (BatchOptions::restart grades them all again). At its start a run removes
// what killed runs left behind: attnlab's temporary folders whose owner
// process is gone (temp_dir.hpp) and their memory cgroups (memory_cgroup.hpp).

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "grading/grade.hpp"

namespace attn::grader {

/// One file to grade and the name reports give it.
struct BatchInput {
  std::filesystem::path file;
  std::string name;  ///< "alice.py", "group1/bob.cpp"
  /// The student it belongs to (class_folder.hpp): the folder's name, or
  /// the file's for a loose file; empty: the name.
  std::string student;
  /// The exercise it is graded as; empty: recognised (or --exercise).
  std::string exercise;
  /// Its answers file (F2, F4), paired by the class folder rules.
  std::optional<std::filesystem::path> answers;
  /// Helper files copied beside it: {file, path relative to the entry's folder}.
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> helpers;
  /// What was chosen and why, one line ("entry attention.py; helpers: util.py").
  std::string choice;
  /// Notes for its text report's header (GradeOptions::notes): which
  /// attempt was graded and why (class_folder.hpp).
  std::vector<std::string> notes;
  /// Non-empty: the student handed in nothing attnlab grades (an empty
  /// folder, only a README.txt, an archive that cannot be unpacked), and
  /// why, as a clause ("the folder is empty"). `file` is empty; the row's
  /// status is "no submission", worth 0 points of the exercise's maximum;
  /// its students/<student>.txt, .results.json and .junit.xml (a submission
  /// not gradable, in the merged --junit too) say why.
  std::string no_submission;
  /// With no_submission: what was handed in cannot be read by the grader
  /// (permission denied, class_folder.cpp Walk::unreadable), so the row is
  /// "not gradable" (a blank LMS cell), not "no submission" (0 points).
  bool unreadable = false;
  /// The student's folder (canonical) the file and its helpers were found
  /// in: they are read below it without following links
  /// (GradeOptions::confine_to). Empty: a file the user named.
  std::filesystem::path root;
  /// What of the student's folder was refused, as a clause ("ignored
  /// notes.py: a symbolic link to a file outside the student's folder (not
  /// followed)"), and which of its files are also another student's (a hard
  /// link inside the class folder: "attention.py is the same file as
  /// bob/attention.py ..."); added to the row's note, the text report,
  /// results.json and JUnit. Empty: nothing.
  std::string refused;
  /// A folder of the run's temporary space holding only this student's
  /// unpacked archive (class_folder.hpp); grade_batch removes it once every
  /// input naming it is graded. Empty: none.
  std::filesystem::path scratch;
};

/// Why nothing to grade was found in `paths`, in a sentence for the
/// user: "the folder subs/ is empty", or that its files are none of the
/// kinds graded (`ignored`: the files it skipped).
std::string no_submission_message(const std::vector<std::filesystem::path>& paths,
                                  const std::vector<std::string>& ignored);

/// The report files of one submission.
struct ReportFiles {
  std::optional<std::filesystem::path> text;          ///< a copy of the text report
  std::optional<std::filesystem::path> results_json;  ///< Gradescope
  std::optional<std::filesystem::path> junit;
  std::optional<std::filesystem::path> prairielearn;  ///< PrairieLearn's results.json
};

/// Grades one submission (grade_file), writing the text report to `text`
/// and the requested files. A usage or infrastructure error is written to
/// the text report too (one line) and to the files. Each file is written
/// whole once grading is over (sandbox/atomic_file.hpp; the copy of the
/// text report is kept in memory meanwhile); one that cannot be written is
/// left as it was and said on stderr. Does not throw.
GradeResult grade_and_report(const GradeOptions& options, std::ostream& text,
                             const ReportFiles& files);

/// One row of the summary.
struct SummaryRow {
  std::string file;
  std::string exercise;
  std::string status;  ///< "graded", "not gradable", "error", "no submission"
  double score = 0;
  double max_score = 0;
  /// Item id -> {earned, possible}, in report order (skipped items absent).
  std::vector<std::pair<std::string, std::pair<double, double>>> points;
  std::string note;  ///< why, when not graded (one line)
  int exit_code = 2;
  std::string report;  ///< the text report's file name in the output folder
  std::string student;  ///< whose it is (class_folder.hpp); empty: file
  std::vector<std::string> misconceptions;  ///< diagnosed misconception keys of its failures
  double seconds = 0;     ///< wall-clock time of its grading (compile included)
  std::string graded_at;  ///< UTC, ISO 8601
  std::string version;    ///< attnlab's version
  std::string choice;     ///< which files were taken, and why (BatchInput::choice)
  std::string settings_hash;  ///< of the settings it was graded with (gradebook.hpp)
  std::uint64_t seed = 0;     ///< the seed of its generated cases
  /// Its report files (relative to the output folder) -> their SHA-256, as
  /// written (row_signature.hpp); empty: not recorded (an older attnlab).
  std::vector<std::pair<std::string, std::string>> report_sha256;
  /// The id of the gradebook (--out folder) it was graded into
  /// (gradebook.hpp ShardRecord::id); signed with the row, so a row copied
  /// from another run's gradebook is told apart. Empty: an older attnlab.
  std::string shard_id;
  /// HMAC-SHA256 of the row under the run's signing key (row_signature.hpp); empty: unsigned.
  std::string signature;
};

SummaryRow summary_row(const std::string& name, const GradeResult& r);


struct BatchOptions {
  std::vector<BatchInput> inputs;
  std::filesystem::path out_dir;
  int jobs = 1;
  /// One JUnit file with a <testsuite> per submission (--junit), besides the per-submission ones.
  std::optional<std::filesystem::path> junit;
  /// The per-submission options; file, display_name and slot are set per submission.
  GradeOptions base;
  /// Wall-clock limit per child grader (0: none); a child past it is killed
  /// and its row is an error. Covers compile + grading + margin.
  std::chrono::milliseconds child_timeout{0};
  /// What decides a grade (gradebook.hpp "settings"); its hash is in every row.
  nlohmann::ordered_json settings = nlohmann::ordered_json::object();
  /// Grade every input even when DIR holds an interrupted run with the same settings.
  bool restart = false;
  /// Non-empty: the salt of summary-anonymous.csv's ids (gradebook.hpp anonymous_id).
  std::string anonymise_salt;
  /// Non-empty: every row this run grades is signed with it (row_signature.hpp).
  std::string signing_key;
};

/// Grades every input (at most options.jobs at once), writes the reports
/// and the summaries, prints one progress line per finished submission and a
/// table at the end. Returns 0 if every submission was graded and passed
/// everything, 1 if one failed or was not gradable, 2 if one could not be
/// graded (usage or infrastructure error, a crashed child) or DIR cannot be
/// used or written (read-only, full, another grader writing to it: said on
/// std::cerr, and the gradebook left as it was before that write).
/// A run that would keep rows of DIR's gradebook (students not graded now)
/// is refused with 2 before anything is written, said on std::cerr with
/// what differs and how to proceed, when a kept row was graded with other
/// settings (its settings_hash: seed, cases, exercise, limits,
/// configuration) or DIR holds a summary-anonymous.csv whose ids are not
/// this run's anonymise_salt's (or no salt is given): the kept rows, and
/// the exports' columns and maxima over them, stay byte-identical.
int grade_batch(const BatchOptions& options, std::ostream& progress);

}  // namespace attn::grader

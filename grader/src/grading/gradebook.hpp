#pragma once
// The gradebook of a class: one row per student, kept across regradings.
//
// summary.csv: student, score, max_score, status, exercises, files, then one
// column per exercise and property with its maximum in the name
// ("F3:oracle_agreement (3)": points earned; empty when not graded or
// skipped), misconceptions, graded_at, attnlab_version, note. A student
// with several files of one exercise counts the best of them.
//
// Text cells that a spreadsheet would read as a formula (starting with '=',
// '+', '-', '@', a tab or a carriage return) are written with a leading
// single quote (OWASP, "CSV Injection"); summary.json keeps the text as it is.
//
// summary.json: {"attnlab": "summary/3", "settings": {...}, "run": {...},
// "students": [...], "submissions": [one per graded file: file, student,
// exercise, status, score, max_score, points, max_points, misconceptions,
// seconds, graded_at, choice, note, report, settings_hash], "counts":
// {status: submissions}, "overview": {...}}. "settings" are what decides a
// grade (seed, cases, the fixed exercise, limits, the teacher
// configuration's content); each row's "settings_hash" is the start of
// their SHA-256, so `attnlab merge` can refuse rows graded otherwise.
// "run" says whether the last run writing here finished ("complete") and,
// while it has not, which students it has graded ("graded"): batch.hpp
// resumes it.
// summary.txt: the overview for people (also printed after a batch): score
// histogram, pass rate per property, the most common diagnosed
// misconceptions, names that look alike, elapsed time, median time per
// submission.
//
// Grading into a folder that already has a summary.json replaces the rows of
// the students graded now and keeps every other row as it was (with the time
// and attnlab version of its own grading); `attnlab merge` joins the
// gradebooks of several runs (shards) the same way (shard_merge.hpp).

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "grading/batch.hpp"

namespace attn::grader {

/// One student's row.
struct StudentRow {
  std::string student;
  std::string status;  ///< "graded", "not gradable", "error" (the worst of its counted files)
  double score = 0;
  double max_score = 0;
  std::vector<std::string> exercises;  ///< graded exercises, in order
  std::vector<std::string> files;      ///< the files counted (one per exercise)
  /// "F3:oracle_agreement" -> {earned, possible}
  std::map<std::string, std::pair<double, double>> points;
  std::vector<std::string> misconceptions;  ///< diagnosed keys of the counted files
  std::string graded_at;  ///< UTC, ISO 8601
  std::string version;    ///< attnlab's version that graded it
  std::string note;
  int exit_code = 0;
};

/// The state of the last run that wrote a gradebook.
struct RunState {
  std::string started_at;  ///< UTC, ISO 8601; empty: no run recorded
  bool complete = true;    ///< false: it was stopped (or is still running, under the lock)
  std::string settings_hash;  ///< of the settings it graded with
  std::vector<std::string> graded;  ///< the students it finished, while not complete
};

struct Gradebook {
  std::vector<StudentRow> students;       ///< by name
  std::vector<SummaryRow> submissions;    ///< by student, then file
  double elapsed_seconds = 0;  ///< wall-clock time of the run(s) that graded it (sum over merged runs)
  std::uint64_t seed = 0;
  int cases = 0;
  nlohmann::ordered_json settings = nlohmann::ordered_json::object();  ///< of the last run
  RunState run;
};

/// The hash of a run's settings: the first 16 hex digits of the SHA-256 of
/// their JSON text (settings as summary.json's "settings").
std::string settings_hash(const nlohmann::ordered_json& settings);

/// A text cell of summary.csv: quoted as RFC 4180 asks, and with a leading
/// "'" when it starts with '=', '+', '-', '@', tab or CR (OWASP's rule
/// against formulas run by a spreadsheet).
std::string csv_cell(const std::string& text);

/// A SummaryRow as summary.json writes it, and back (throws
/// nlohmann::json::exception on a malformed row).
nlohmann::ordered_json summary_row_json(const SummaryRow& r);
SummaryRow summary_row_from_json(const nlohmann::json& j);

/// The student rows of `submissions` (grouped by student; per exercise the
/// file with the highest score counts).
std::vector<StudentRow> student_rows(const std::vector<SummaryRow>& submissions);

/// `base` with every student of `fresh` replaced by (or added as) fresh's
/// rows; the submissions likewise. Elapsed times add up.
Gradebook update_gradebook(const Gradebook& base, const Gradebook& fresh);

/// The gradebook in out_dir/summary.json; an empty one if there is none.
/// Throws std::runtime_error if the file exists but cannot be read.
Gradebook read_gradebook(const std::filesystem::path& out_dir);

/// Writes summary.csv, summary.txt and, last, summary.json into out_dir,
/// each whole (sandbox/atomic_file.hpp write_files_atomically): after a failed write
/// the three are as they were. Throws std::runtime_error naming the file
/// and why ("No space left on device").
void write_gradebook(const std::filesystem::path& out_dir, const Gradebook& book);

/// The overview as summary.json's "overview" and as text.
nlohmann::ordered_json gradebook_overview(const Gradebook& book);
std::string overview_text(const Gradebook& book);

/// "2026-05-01T12:00:00Z": now, UTC.
std::string utc_now();

/// The column name of an item: "F3:oracle_agreement (3)".
std::string gradebook_column(const std::string& key, double max_points);

}  // namespace attn::grader

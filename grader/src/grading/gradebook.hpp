#pragma once
// The gradebook of a class: one row per student, kept across regradings.
//
// summary.csv: student, score, max_score, status, exercises, files, then one
// column per exercise and property with its maximum in the name
// ("F3:oracle_agreement (3)": points earned; empty when not graded or
// skipped), misconceptions, graded_at, attnlab_version, note. A student
// with several files of one exercise counts the best of them.
//
// summary.json: {"attnlab": "summary/2", "students": [...], "submissions":
// [one per graded file: file, student, exercise, status, score, max_score,
// points, max_points, misconceptions, seconds, graded_at, choice, note,
// report], "counts": {status: submissions}, "overview": {...}}.
// summary.txt: the overview for people (also printed after a batch): score
// histogram, pass rate per property, the most common diagnosed
// misconceptions, elapsed time, median time per submission.
//
// Grading into a folder that already has a summary.json replaces the rows of
// the students graded now and keeps every other row as it was (with the time
// and attnlab version of its own grading); `attnlab merge` joins the
// gradebooks of several runs (shards) the same way.

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

struct Gradebook {
  std::vector<StudentRow> students;       ///< by name
  std::vector<SummaryRow> submissions;    ///< by student, then file
  double elapsed_seconds = 0;  ///< wall-clock time of the run(s) that graded it (sum over merged runs)
  std::uint64_t seed = 0;
  int cases = 0;
};

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

/// Writes summary.csv, summary.json and summary.txt into out_dir. Throws
/// std::runtime_error if a file cannot be written.
void write_gradebook(const std::filesystem::path& out_dir, const Gradebook& book);

/// The overview as summary.json's "overview" and as text.
nlohmann::ordered_json gradebook_overview(const Gradebook& book);
std::string overview_text(const Gradebook& book);

/// "2026-05-01T12:00:00Z": now, UTC.
std::string utc_now();

/// The column name of an item: "F3:oracle_agreement (3)".
std::string gradebook_column(const std::string& key, double max_points);

}  // namespace attn::grader

#pragma once
// The gradebook of a class: one row per student, kept across regradings.
//
// Fixed columns: the class's exercises are those the configuration or
// --exercise names (the fixed exercise; else the configuration's
// "exercises" when it names several), else every exercise some student
// handed in. Each has a fixed maximum (its points table with the
// configuration's overrides, scoring_rules.hpp exercise_maximum) and so has
// each of its properties, the same in every row: a student who handed in
// nothing for an exercise has "no submission" there, 0 of its maximum; "not
// gradable" is only handed-in work that cannot run (0 points too, said
// apart). A student's max_score is the sum of the class's maxima.
//
// summary.csv: student, score, max_score, status, exercises, files, then per
// exercise "F3 (12)" (its total), "F3 status", and one column per property
// with its maximum in the name ("F3:oracle_agreement (3)": points earned;
// empty when that exercise was not graded or the property was skipped),
// then misconceptions, graded_at, attnlab_version, seed, settings_hash,
// note. A student with several files of one exercise counts the best.
// status: "graded" when every handed-in exercise was graded, else the worst
// ("not gradable", "error") of them; "no submission" when nothing was.
//
// Text cells that a spreadsheet would read as a formula (starting with '=',
// '+', '-', '@', a tab or a carriage return) are written with a leading
// single quote (OWASP, "CSV Injection"); summary.json keeps the text as it is.
//
// Beside it, for a learning management system's gradebook import (one
// assignment "attnlab F3" per exercise; a graded exercise's points, 0 for
// "no submission"). Neither import leaves a grade as it is for an empty
// cell: Canvas counts an empty cell beside an existing grade as a change to
// no grade (app/models/gradebook_importer.rb, no_change_to_value?: a blank
// new value equals only a blank or "-" current one), Moodle reads an empty
// cell, and '-', as "no grade" and commits it (grade/import/csv/classes/
// load_data.php, update_grade_item). Both leave a student absent from the
// file as they are; so a student with an exercise "not gradable" or
// "error" is left out of both files (lms_left_out), and summary.txt names
// them:
// - gradebook-canvas.csv: Canvas's import columns "Student", "ID", "SIS
//   User ID", "SIS Login ID", "Section", then the assignments; the second
//   row is "Points Possible" with each exercise's maximum. The student's
//   id goes into "Student" and "SIS Login ID" (Canvas matches a row by
//   ID, SIS User ID or SIS Login ID: name the folders by login).
// - gradebook-moodle.csv: "Username", then the assignments (Moodle's
//   "Import grades: CSV file" maps the identifier column to username, and
//   each grade column to a grade item).
// - summary-anonymous.csv, only with an anonymisation salt (the
//   configuration's "anonymise_salt" or --anonymise-salt): summary.csv's
//   grades under anonymous_id() instead of the student (no files, notes or
//   names), sorted by that id; `attnlab reveal` gives the students back.
//
// summary.json: {"attnlab": "summary/4", "settings": {...}, "run": {...},
// "columns": [{exercise, max_score, items: [{id, max_points}]}],
// "students": [...], "submissions": [one per graded file: file, student,
// exercise, status, score, max_score, points, max_points, misconceptions,
// seconds, graded_at, choice, note, report, settings_hash, seed,
// report_sha256, shard_id, signature], "shard": {id, ids, students,
// signature} (ShardRecord), "counts": {status: submissions}, "overview":
// {...}}. "settings" are what decides a grade (seed, cases, the fixed
// exercise, limits, the teacher configuration's content, its secrets
// "anonymise_salt" and "signing_key" left out); each row's "settings_hash"
// is the start of their SHA-256, so `attnlab merge` can refuse rows graded
// otherwise; "report_sha256" and "signature" (empty without a signing key)
// are row_signature.hpp's.
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
// and attnlab version of its own grading: its line of summary.csv is the
// same bytes while the class's exercises stay the same); `attnlab merge`
// joins the gradebooks of several runs (shards) the same way
// (shard_merge.hpp).

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "grading/batch.hpp"
#include "grading/teacher_config.hpp"

namespace attn::grader {

/// The fixed columns of one exercise of the class.
struct ExerciseColumns {
  std::string exercise;  ///< "F3"
  double max_score = 0;  ///< the exercise's maximum (points table and overrides)
  /// Property id -> its maximum, in report order (the answers item last).
  std::vector<std::pair<std::string, double>> items;
};

/// One student's result on one exercise of the class.
struct ExerciseCell {
  std::string status = "no submission";  ///< or "graded", "not gradable", "error"
  double score = 0;                       ///< points earned (0 unless graded)
  std::string file;                       ///< the file counted; empty: none
};

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
  std::uint64_t seed = 0;      ///< the seed of its generated cases
  std::string settings_hash;   ///< settings_hash() of the settings it was graded with
  std::string note;
  int exit_code = 0;
  /// Exercise id -> its cell, one per exercise of the class.
  std::map<std::string, ExerciseCell> cells;
};

/// The state of the last run that wrote a gradebook.
struct RunState {
  std::string started_at;  ///< UTC, ISO 8601; empty: no run recorded
  bool complete = true;    ///< false: it was stopped (or is still running, under the lock)
  std::string settings_hash;  ///< of the settings it graded with
  std::vector<std::string> graded;  ///< the students it finished, while not complete
};

/// What a gradebook is (summary.json's "shard"), signed so that `attnlab
/// merge` refuses a row taken from another run's gradebook and a gradebook
/// with a row removed (row_signature.hpp shard_signature).
struct ShardRecord {
  /// Random (128 bits, OpenSSL RAND_bytes, 32 hex digits), made when a run
  /// first writes the --out folder's gradebook (or merge writes one) and
  /// kept by every later run into it; each row it grades has it as
  /// SummaryRow::shard_id.
  std::string id;
  /// The ids whose rows it may hold: its own, and a merged gradebook's
  /// shards' ids (in order).
  std::vector<std::string> ids;
  /// Every student it has rows of (sorted): a removed row shows.
  std::vector<std::string> students;
  /// HMAC-SHA256 under the signing key over the above and every row's
  /// signature, in row order (row_signature.hpp); empty: unsigned.
  std::string signature;
};

struct Gradebook {
  std::vector<StudentRow> students;       ///< by name
  std::vector<SummaryRow> submissions;    ///< by student, then file
  double elapsed_seconds = 0;  ///< wall-clock time of the run(s) that graded it (sum over merged runs)
  std::uint64_t seed = 0;
  int cases = 0;
  nlohmann::ordered_json settings = nlohmann::ordered_json::object();  ///< of the last run
  RunState run;
  /// The class's exercises and their fixed columns, in exercise order.
  std::vector<ExerciseColumns> columns;
  /// Non-empty: also write summary-anonymous.csv with anonymous_id(salt, student).
  std::string anonymise_salt;
  ShardRecord shard;  ///< empty id: written by an older attnlab
};

/// The students of `book`'s rows (SummaryRow::student, else its file), sorted, each once.
std::vector<std::string> gradebook_students(const Gradebook& book);

/// The columns of `exercise`: its items (properties in report order, then
/// the answers item) with their points under `config` (may be null), and
/// its maximum; with `only_property` (--property) that item alone. Throws
/// std::invalid_argument for an exercise attnlab does not grade.
ExerciseColumns exercise_columns(const std::string& exercise, const TeacherConfig* config,
                                 const std::string& only_property = "");

/// The class's exercises (see the top of this file): `fixed` if not empty,
/// else the configuration's "exercises" when it names several, else the
/// exercises of the handed-in rows of `submissions`; in exercise order, each
/// with exercise_columns().
std::vector<ExerciseColumns> class_columns(const std::string& fixed, const TeacherConfig* config,
                                           const std::vector<SummaryRow>& submissions,
                                           const std::string& only_property = "");

/// The anonymous id of `student` under `salt`: "anon-" and the first 16 hex
/// digits of HMAC-SHA256 keyed by the salt (RFC 2104, FIPS 180-4). Whoever
/// has the salt and the student list recomputes it (`attnlab reveal`);
/// without the salt it names no one. Throws std::runtime_error if OpenSSL fails.
std::string anonymous_id(const std::string& salt, const std::string& student);

/// The hash of a run's settings: the first 16 hex digits of the SHA-256 of
/// their JSON text (settings as summary.json's "settings").
std::string settings_hash(const nlohmann::ordered_json& settings);

/// How settings `b` differ from settings `a` (both as summary.json's
/// "settings"): "seed 7 vs 1; configuration differs", each key that differs
/// with b's value first; a structured value (the configuration) only
/// "differs". "settings recorded differently" when no key differs.
std::string settings_differences(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b);

/// A text cell of summary.csv: quoted as RFC 4180 asks, and with a leading
/// "'" when it starts with '=', '+', '-', '@', tab or CR (OWASP's rule
/// against formulas run by a spreadsheet).
std::string csv_cell(const std::string& text);

/// An identifier cell of an LMS export (Canvas's "SIS Login ID", Moodle's
/// "Username"): quoted as RFC 4180 asks and otherwise exactly the id, with
/// no leading "'", so "-jdoe" or "@x" still matches its user on import. An
/// id is the key the LMS gave and matches, not text a spreadsheet shows; a
/// "'" would make it another user's (or nobody's) id.
std::string csv_id_cell(const std::string& id);

/// A SummaryRow as summary.json writes it, and back (throws
/// nlohmann::json::exception on a malformed row).
nlohmann::ordered_json summary_row_json(const SummaryRow& r);
SummaryRow summary_row_from_json(const nlohmann::json& j);

/// The student rows of `submissions` (grouped by student; per exercise the
/// file with the highest score counts) over the class's `columns`; empty
/// `columns` (a gradebook written before they were kept): the exercises of
/// the handed-in rows, each with the largest maximum seen.
std::vector<StudentRow> student_rows(const std::vector<SummaryRow>& submissions,
                                     const std::vector<ExerciseColumns>& columns = {});

/// `base` with every student of `fresh` replaced by (or added as) fresh's
/// rows; the submissions likewise; the columns of both (fresh's for an
/// exercise in both). Elapsed times add up.
Gradebook update_gradebook(const Gradebook& base, const Gradebook& fresh);

/// The gradebook in out_dir/summary.json; an empty one if there is none.
/// Throws std::runtime_error if the file exists but cannot be read.
Gradebook read_gradebook(const std::filesystem::path& out_dir);

/// The students left out of gradebook-canvas.csv and gradebook-moodle.csv,
/// in book order: those with an exercise "not gradable" or "error" (either
/// import would take the empty cell as no grade, clearing the grade they
/// have; see the file's comment above for where each import does so).
std::vector<std::string> lms_left_out(const Gradebook& book);

/// Writes summary.csv, gradebook-canvas.csv, gradebook-moodle.csv,
/// summary-anonymous.csv (with a salt; without one, an old one is removed),
/// summary.txt and, last, summary.json into out_dir, each whole
/// (sandbox/atomic_file.hpp write_files_atomically): after a failed write
/// they are as they were. Throws std::runtime_error naming the file
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

#pragma once
// The teacher configuration (`attnlab grade --config FILE`): the seed and
// case count of the hidden tests, optional points and visibility overrides,
// optional limits. A JSON file, read by the grader before any submission
// starts; the sandbox never shows it to a submission (sandbox.hpp: hidden).
//
//   {
//     "seed": 918273645,              // the hidden tests' seed (default: the fixed one)
//     "cases": 300,                   // generated cases per property
//     "student_cases": 20,            // cases of --student runs with this file (optional)
//     "exercise": "F3",               // every submission is graded as F3 (optional)
//     "visibility": {"examples": "visible", "generated": "after_published",
//                    "answers": "after_published"},
//     "exercises": {
//       "F3": {"points":     {"oracle_agreement": 4},
//              "visibility": {"oracle_agreement": "hidden"}}
//     },
//     "limits": {"timeout_s": 10, "submission_timeout_s": 900, "compile_timeout_s": 120,
//                "memory_mib": 4096, "max_processes": 64, "file_size_mib": 64},
//     "anonymise_salt": "a secret of 8+ characters",  // summary-anonymous.csv (gradebook.hpp)
//     "signing_key": "a secret of 16+ characters",    // signs gradebook rows (row_signature.hpp)
//     "entry": "attention.py",        // the file of a student's folder that is graded (optional)
//     "attempts": "named"             // "latest", "named" or "best" (optional)
//   }
//
// "attempts" says which of a student's several files of one exercise (its
// attempts: attention_v1.py, attention_v2.py, ...) is graded in a class
// folder or an upload (class_folder.hpp): "latest", the one modified last
// (its modification time, st_mtime; equal times: the last in name order);
// "named", the file named by "entry" (its path below the student's folder,
// or its file name), else the latest with a note; "best", every attempt,
// the gradebook counting the best. Default: "named" when "entry" is given,
// else "latest". "entry" is a relative path without "..", at most 255
// bytes; "attempts": "named" without "entry" is an error.
//
// The exercise is fixed by "exercise", or by "exercises" when it names
// exactly one: a submission is then graded as that exercise whatever it
// looks like (a `# exercise: C1` line cannot move it to another exercise),
// and the report says what it looked like. With several exercises and no
// "exercise", a submission recognised as an exercise the configuration does
// not name is not graded.
//
// Every member is optional; an unknown member, exercise or property is an
// error (a typo must not silently change the grading), and so is a member
// given twice in one object (RFC 8259 leaves which one counts to the
// reader), named with the file. Every number is held
// to the same bounds as its command-line option (number_bounds.hpp): a
// fraction where a whole number is expected, a negative number, or one past
// the range is an error naming the member, the value and the range, never
// wrapped or rounded. Visibility values are
// Gradescope's: "visible", "hidden", "after_due_date", "after_published".

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

namespace attn::grader {

/// The configuration file is unreadable or invalid; the message names the member.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ConfigLimits {
  std::optional<double> timeout_s;             ///< per case (--timeout)
  std::optional<double> submission_timeout_s;  ///< per submission (--submission-timeout)
  std::optional<double> compile_timeout_s;     ///< per compiler run (--compile-timeout)
  std::optional<std::uint64_t> memory_mib;     ///< RLIMIT_AS (--memory)
  std::optional<std::uint64_t> max_processes;  ///< RLIMIT_NPROC allowance (--max-processes)
  std::optional<std::uint64_t> file_size_mib;  ///< RLIMIT_FSIZE (--file-size)
};

struct ExerciseOverrides {
  std::map<std::string, double> points;           ///< property id -> points
  std::map<std::string, std::string> visibility;  ///< property id -> visibility
};

/// Which of a student's attempts at one exercise is graded (see above).
enum class Attempts { latest, named, best };

/// "latest", "named", "best".
const char* attempts_name(Attempts a);

struct TeacherConfig {
  std::filesystem::path path;  ///< where it was read from (absolute)
  std::optional<std::uint64_t> seed;
  std::optional<int> cases;
  std::optional<int> student_cases;
  std::optional<std::string> examples_visibility;
  std::optional<std::string> generated_visibility;
  std::optional<std::string> answers_visibility;
  std::map<std::string, ExerciseOverrides> exercises;  ///< by exercise id ("F3")
  std::optional<std::string> exercise;  ///< "exercise": the exercise every submission is graded as
  ConfigLimits limits;
  /// "anonymise_salt": keys the anonymous ids of summary-anonymous.csv
  /// (gradebook.hpp anonymous_id); empty: none.
  std::string anonymise_salt;
  /// "signing_key": signs each gradebook row a class run writes, so
  /// `attnlab merge --config` can refuse a forged shard (row_signature.hpp);
  /// empty: rows are unsigned.
  std::string signing_key;
  std::optional<std::string> entry;    ///< "entry": the file graded, below a student's folder
  std::optional<Attempts> attempts;    ///< "attempts"; unset: attempt_policy's default
};

/// The attempt policy of `c` (null: no configuration): its "attempts", else
/// named when it names an "entry", else latest.
Attempts attempt_policy(const TeacherConfig* c);

/// The exercise `c` fixes: its "exercise" member, else the one exercise its
/// "exercises" object names; nullopt when it fixes none.
std::optional<std::string> fixed_exercise(const TeacherConfig& c);

/// True for "visible", "hidden", "after_due_date", "after_published".
bool is_visibility(const std::string& v);

/// The largest configuration file read (1 MiB; the example is 1 KiB).
inline constexpr std::uint64_t kMaxConfigBytes = std::uint64_t{1} << 20;

/// Reads and checks the file. Exercise ids and property ids are checked
/// against the exercise registry (exercise.hpp). Throws ConfigError: the
/// file is not a regular file (a FIFO, a device, a directory: refused
/// before reading), is larger than kMaxConfigBytes, or is invalid.
TeacherConfig read_teacher_config(const std::filesystem::path& file);

/// The same from JSON text (`origin` names it in messages). Throws ConfigError
/// naming the member ("CONFIG: cases is 4294967296; it must be a whole number
/// from 1 to 100000000").
TeacherConfig parse_teacher_config(const std::string& text, const std::string& origin);

}  // namespace attn::grader

#pragma once
// A class to grade: `attnlab grade CLASS_DIR`. Each folder directly in
// CLASS_DIR is one student (its name is the folder's); an archive directly in
// it (.zip, .tar, .tar.gz, .tgz; sandbox/unpack_archive.hpp: files and
// folders only, under per-student budgets, into a scratch folder removed
// once the student is graded) is a student folder named without the
// extension (one folder inside it is taken as the student's); each other
// file directly in it is a student of its own (named by the file, as
// before). Nothing is followed out of a student's folder: an entry is
// read (lstat(2), never stat) only if it is a regular file whose every
// name (st_nlink) is inside the folder or in another student's files of
// CLASS_DIR (two students' files that are one file are both graded, each
// row's note naming the other: "attention.py is the same file as
// bob/attention.py"), or a symbolic link to such a file inside it; links
// out of it, links to folders, hard links with a name elsewhere (outside
// CLASS_DIR, in a hidden folder of it), devices, FIFOs and sockets are
// refused and named in the student's row ("ignored notes.py: a symbolic
// link to a file outside the student's folder (not followed)"), and so is
// a path past PATH_MAX ("its path is too long to read", as an archive's);
// directly in CLASS_DIR, a link or special file is a student with no submission. The
// files are then copied into the sandbox below the student's folder without
// following links (BatchInput::root, sandbox/no_follow.hpp). Inside a
// student's folder (walked recursively, hidden entries skipped):
//
// - an entry is a code file (.py, .cpp/.cc/.cxx, .ipynb, an executable)
//   whose exercise is recognised (submission/recognise.hpp: the function,
//   namespace or header it defines, or a `# exercise:` line); a Jupyter
//   notebook counts by its code cells (submission/notebook.hpp);
// - an answers file (.json with "exercise") is paired with the entry of its
//   exercise (F4 answers also take an entry recognised as F3: F4 has F3's
//   signature), and graded alone only when no entry takes it;
// - every other code file, and every C++ header (.hpp, .h, .hh, .hxx), is a
//   helper: copied beside the entry (so `import helpers` and
//   `#include "util.hpp"` work in the sandbox), never a row of its own; a
//   C++ entry's helper .cpp files are compiled and linked with it;
// - every other file is a data file: staged beside the entry (below its
//   folder, at most kDataFileBytes each, kDataTotalBytes together), so
//   code that opens "scale.txt" reads it; the choice names them;
// - a file that defines the entries of several exercises (a Python file
//   with masked_softmax and the scaled_dot_product_attention that calls it,
//   a C++ file with f2::masked_softmax and the f3::attention that calls it:
//   Recognition::defines) is an entry of each: one row per exercise, named
//   "alice/attention.py (F2)", "alice/attention.py (F3)" (the F3 row first,
//   the exercise it answers as a whole); only the exercises the
//   configuration's "exercises" names, when it names some;
// - with the exercise fixed (--exercise or the configuration), the entries
//   are the files that define that exercise's entry (a file with F2 and F3
//   is F2's entry under --exercise F2); if none does, the only code file
//   (or the first in name order, with a note) is graded, its choice saying
//   what it does define ("defines F3; graded as F2, the exercise fixed for
//   this run").
//
// Several files of one exercise are a student's attempts; which is graded
// is the teacher configuration's "attempts" (teacher_config.hpp, Attempts):
// the latest by modification time (the default without an "entry"), the
// one "entry" names, or every one, the gradebook counting the best
// (gradebook.hpp). The entry's choice and its text report say which file
// was graded and why ("graded attention_v3.py: latest of 3 attempts by
// modification time"). An answers file pairs with the entry of its own
// exercise, whatever exercise the file's other functions answer.
//
// A student folder (or archive) with nothing of these is a student too: a
// BatchInput with `no_submission` set (batch.hpp), its row "no submission".
// Students and shown file names are student_id()s (non-UTF-8 bytes escaped).
// Two students of one id (a folder "alice" and an archive "alice.zip") are
// "alice" and "alice%~2": a mark no student_id contains.
//
// Every choice is written in `choice`, which the progress line and the
// gradebook show; the attempt chosen is also a note of the text report
// (BatchInput::notes).

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "grading/batch.hpp"
#include "grading/teacher_config.hpp"
#include "sandbox/temp_dir.hpp"

namespace attn::grader {

/// The students of a class, ready for grade_batch.
struct ClassInputs {
  std::vector<BatchInput> inputs;    ///< one per graded entry (a student may have several)
  std::vector<std::string> ignored;  ///< files of no kind attnlab reads
  /// Folders of the class folder that are attnlab's output (an --out of this
  /// or an earlier run: is_attnlab_output), never a student; the caller says so.
  std::vector<std::string> outputs;
  /// Python made from notebooks and unpacked archives (a scratch folder per
  /// archive's student, BatchInput::scratch) live here while grading runs.
  std::shared_ptr<TempDir> converted;
};

/// Whether `dir` is a folder attnlab wrote as --out: it holds the lock
/// (out_folder.hpp kLockFile), or a summary.json beside a students/ folder
/// (kReportsFolder). Read with lstat(2): no link is followed.
bool is_attnlab_output(const std::filesystem::path& dir);

/// What decides which files of a student are graded.
struct CollectRules {
  /// Fixes the exercise of every entry (--exercise, the configuration's
  /// "exercise"); empty: recognised per file.
  std::string exercise;
  /// The exercises the configuration's "exercises" names; a file defining
  /// several exercises is graded only as these. Empty: any.
  std::set<std::string> graded;
  Attempts attempts = Attempts::latest;  ///< which attempt of an exercise is graded
  std::string entry;  ///< the configuration's "entry" (Attempts::named)
};

/// The rules of a run: `exercise` fixed, and the configuration's
/// "exercises", "attempts" and "entry" (`config` may be null).
CollectRules collect_rules(const std::string& exercise, const TeacherConfig* config);

/// Collects the students of `paths`: a folder is a class folder (as above),
/// a file is a student of its own. `exclude` (the report folder) is skipped.
/// `rules` fix the exercise (empty: recognised per file) and say which
/// attempts are graded; with the exercise fixed, a student whose work is all
/// recognised as other exercises has no submission ("it holds no work of F2
/// (attempt.py: F3)"). `wanted` (when set) is asked each student id of a
/// class folder's top level, its duplicate mark included: a student it
/// refuses is neither walked nor unpacked (a regrade of a few students).
/// Throws std::invalid_argument for a path that does not exist and
/// std::system_error if the notebook folder cannot be made.
ClassInputs collect_class(const std::vector<std::filesystem::path>& paths,
                          const std::optional<std::filesystem::path>& exclude,
                          const CollectRules& rules,
                          const std::function<bool(const std::string&)>& wanted = {});

/// One student's upload (Gradescope's /autograder/submission, a PrairieLearn
/// /grade/student): the same rules for a single folder whose name is not the
/// student's. Returns its entries, every one graded (upload.hpp), empty if
/// it holds no code and no answers file (`why` then says what it holds).
/// Throws as collect_class.
ClassInputs collect_upload(const std::filesystem::path& folder, const CollectRules& rules,
                           std::string* why);

/// The id of a student (or the shown name of a file) from its file name:
/// sandbox/escaped_name.hpp's escaped_name, the name itself when it is
/// valid UTF-8 without '%' or control characters; else each such byte
/// written %XX (hex, upper case) and '%' as %25, so that distinct names
/// keep distinct ids and the id gives back the name ("jos\xe9" -> "jos%E9",
/// "jos\xe8" -> "jos%E8", "100%" -> "100%25").
std::string student_id(const std::string& name);

/// What tells a second student of one id from the first ("alice%~2"):
/// student_id writes '%' as "%25", so no folder's id contains it.
inline constexpr const char* kDuplicateMark = "%~";

/// Student `name` is in shard `k` of `n` (1 <= k <= n): FNV-1a of the name
/// modulo n equals k - 1. Deterministic across machines and runs.
bool in_shard(const std::string& name, int k, int n);

}  // namespace attn::grader

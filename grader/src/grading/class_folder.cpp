// A class folder: students, their entries, answers and helpers (see class_folder.hpp).
#include "grading/class_folder.hpp"

#include <algorithm>
#include <functional>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exercises/registry.hpp"
#include "grading/out_folder.hpp"
#include "exercises/answers.hpp"
#include "sandbox/escaped_name.hpp"
#include "sandbox/file_problem.hpp"
#include "sandbox/no_follow.hpp"
#include "sandbox/unpack_archive.hpp"
#include "submission/notebook.hpp"
#include "submission/recognise.hpp"
#include "submission/submission.hpp"
#include "exercises/listed.hpp"

namespace attn::grader {
namespace {

namespace fs = std::filesystem;

bool hidden_name(const fs::path& p) {
  const std::string n = p.filename().string();
  return (!n.empty() && n[0] == '.') || n == "__pycache__";
}

bool is_code(const fs::path& p) { return is_notebook(p) || detect_language(p).has_value(); }

/// ".zip", ".tar.gz", ".tgz", ".tar" (any case): a student's archive; its name without them.
std::optional<std::string> archive_stem(const fs::path& p) {
  std::string name = p.filename().string(), lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const std::string ext : {".tar.gz", ".tgz", ".zip", ".tar"})
    if (lower.size() > ext.size() && lower.compare(lower.size() - ext.size(), ext.size(), ext) == 0)
      return name.substr(0, name.size() - ext.size());
  return std::nullopt;
}

/// `p` lies below the folder `root` (both canonical).
bool inside(const fs::path& p, const fs::path& root) {
  const fs::path rel = p.lexically_relative(root);
  return !rel.empty() && *rel.begin() != ".." && rel != ".";
}

/// A file of a student's folder that may be read.
struct Found {
  fs::path path;    ///< where it was found (a link's own path)
  fs::path source;  ///< the regular file read for it (a link's target, inside the folder)
};

/// What a walk of a student's folder found, and what it refused and why.
struct Walk {
  std::vector<Found> files;          ///< in name order
  std::vector<std::string> refused;  ///< "notes.py: a symbolic link to a file outside the student's folder"
  /// Files read that are also another student's (hard links inside the class
  /// folder): "attention.py is the same file as bob/attention.py".
  std::vector<std::string> shared;
  /// What the grader may not read (EACCES: a folder it cannot list, a file
  /// it cannot open), by path below the student's folder ("." the folder
  /// itself); neither walked nor graded.
  std::vector<std::string> unreadable;
};

/// Whether the grader is denied reading `p` (a folder: listing it;
/// access(2) with the grader's ids; root is denied nothing).
bool permission_denied(const fs::path& p, bool folder) {
  if (folder) {
    DIR* d = ::opendir(p.c_str());
    if (d) {
      ::closedir(d);
      return false;
    }
    return errno == EACCES;
  }
  return ::access(p.c_str(), R_OK) != 0 && errno == EACCES;
}

/// A name attnlab would grade as code (.py, C++, .ipynb), read from the name alone.
bool is_code_name(const fs::path& p) {
  const std::string x = p.extension().string();
  return is_notebook(p) || x == ".py" || x == ".cpp" || x == ".cc" || x == ".cxx" || x == ".C";
}

/// The names of files with several names (st_nlink > 1) in a class folder,
/// for telling a hard link between two students' files (graded, and
/// flagged) from one whose other names are outside the class (refused):
/// link(2) leaves no trace of a file's other names, so they are found by
/// walking the class folder (lstat(2), no link followed). Only students'
/// files count: those below a student's folder, and the code and archive
/// files directly in the class folder; hidden entries, the report folder
/// and the other files directly in it (a .json there may be a teacher's
/// configuration or answer key) do not. Walked the first time it is asked, so a class
/// without hard links is walked once.
class ClassNames {
 public:
  ClassNames(fs::path root, std::optional<fs::path> excluded)
      : root_(std::move(root)), excluded_(std::move(excluded)) {}

  /// The names (relative to the class folder, student_id()s, in name
  /// order) of the file `st` other than those below the folder `own`
  /// (canonical; empty: none excluded); nullopt when they are not all
  /// found, `found_own` (the names counted below `own`) added: the file
  /// then has a name outside the class folder, or one in a hidden entry.
  std::optional<std::vector<std::string>> others(const struct stat& st, const fs::path& own,
                                                 nlink_t found_own) {
    if (root_.empty()) return std::nullopt;
    if (!walked_) walk();
    std::vector<std::string> out;
    const auto it = names_.find({st.st_dev, st.st_ino});
    if (it != names_.end())
      for (const auto& p : it->second)
        if (own.empty() || !inside(p, own)) out.push_back(student_id(p.lexically_relative(root_).generic_string()));
    if (found_own + out.size() != st.st_nlink) return std::nullopt;
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  void walk() {
    walked_ = true;
    std::error_code ec;
    auto it = fs::recursive_directory_iterator(root_, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      const fs::path& e = it->path();
      struct stat st {};
      const bool hidden = hidden_name(e);
      if (::lstat(e.c_str(), &st) != 0) {
        it.disable_recursion_pending();  // a path past PATH_MAX: not opened
        continue;
      }
      if (S_ISDIR(st.st_mode)) {
        std::error_code ec2;
        if (hidden || (excluded_ && fs::weakly_canonical(e, ec2) == *excluded_)) it.disable_recursion_pending();
      } else if (S_ISREG(st.st_mode) && st.st_nlink > 1 && !hidden &&
                 (it.depth() > 0 || is_code(e) || archive_stem(e))) {
        names_[{st.st_dev, st.st_ino}].push_back(e);
      }
    }
  }

  fs::path root_;
  std::optional<fs::path> excluded_;
  bool walked_ = false;
  std::map<std::pair<dev_t, ino_t>, std::vector<fs::path>> names_;
};

/// "attention.py is the same file as bob/attention.py" (`rel`: the
/// student's own name of it; `others`: its names elsewhere in the class).
std::string same_file_clause(const std::string& rel, const std::vector<std::string>& others) {
  std::string list;
  for (std::size_t k = 0; k < others.size() && k < 3; ++k)
    list += (k ? (k + 1 == others.size() ? " and " : ", ") : "") + shortened(others[k]);
  if (others.size() > 3) list += " and " + std::to_string(others.size() - 3) + " more";
  return shortened(rel) + " is the same file as " + list +
         " (a hard link between students' files: graded, for the teacher to see)";
}

/// Why the link `link` below `root` is not read, or empty (and `target`
/// set) when it leads to a regular file inside `root` of which every name
/// is inside it (`names`: the names found per file) or inside the class
/// folder (`shared` then gets its other names: ClassNames::others).
std::string link_refusal(const fs::path& link, const fs::path& root,
                         const std::map<std::pair<dev_t, ino_t>, nlink_t>& names, ClassNames& klass,
                         fs::path* target, std::vector<std::string>* shared) {
  std::error_code ec;
  const fs::path t = fs::canonical(link, ec);
  struct stat st {};
  if (ec || ::lstat(t.c_str(), &st) != 0) return "a symbolic link to nothing (not followed)";
  const std::string what = S_ISREG(st.st_mode) ? "a file" : file_type_words(st.st_mode);
  if (!inside(t, root)) return "a symbolic link to " + what + " outside the student's folder (not followed)";
  if (!S_ISREG(st.st_mode)) return "a symbolic link to " + what + " (not followed)";
  const auto n = names.find({st.st_dev, st.st_ino});
  const nlink_t own = n == names.end() ? 0 : n->second;
  if (st.st_nlink > own) {
    const auto others = klass.others(st, root, own);
    if (!others) return "a symbolic link to a hard link whose other names are not all among the class's students' files";
    *shared = *others;
  }
  *target = t;
  return "";
}

/// The files below `root` (canonical) in name order, hidden entries and
/// `excluded` skipped, nothing followed out of `root`: a symbolic link is
/// read only if it leads to a regular file inside `root`; a file with
/// several names (hard links, st_nlink > 1) only if all its names are
/// inside `root` or in other students' files of the class folder `klass`
/// (a hard link cannot be traced to its other names, so they are counted:
/// link(2), stat(2); the other students' are named in Walk::shared);
/// devices, FIFOs and sockets never (a FIFO is never opened, so it cannot
/// hold the run); a path past PATH_MAX is not opened (path_resolution(7)).
/// The others are refused, with why.
Walk walk_student(const fs::path& root, const std::optional<fs::path>& excluded, ClassNames& klass) {
  Walk w;
  struct Regular {
    fs::path path;
    struct stat st;
  };
  std::vector<Regular> regular;
  std::vector<fs::path> links;
  std::map<std::pair<dev_t, ino_t>, nlink_t> names;  // every name of a file found (hidden ones too)
  std::error_code ec;
  if (permission_denied(root, true)) w.unreadable.push_back(".");
  auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::path& e = it->path();
    struct stat st {};
    const bool hidden = hidden_name(e);
    const auto denied = [&] {
      w.unreadable.push_back(student_id(e.lexically_relative(root).generic_string()));
    };
    if (::lstat(e.c_str(), &st) != 0) {
      // Past PATH_MAX a path cannot be opened: said (as an archive's is),
      // and not recursed into (which would end the walk).
      if (errno == ENAMETOOLONG && !hidden)
        w.refused.push_back(shortened(student_id(e.lexically_relative(root).generic_string())) + ": " +
                            path_too_long_clause(e.lexically_relative(root), "read", "read"));
      it.disable_recursion_pending();
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      std::error_code ec2;
      if (hidden || (excluded && fs::weakly_canonical(e, ec2) == *excluded)) {
        it.disable_recursion_pending();
      } else if (permission_denied(e, true)) {
        denied();
        it.disable_recursion_pending();
      }
    } else if (S_ISREG(st.st_mode)) {
      ++names[{st.st_dev, st.st_ino}];
      if (!hidden && permission_denied(e, false))
        denied();
      else if (!hidden)
        regular.push_back({e, st});
    } else if (!hidden && S_ISLNK(st.st_mode)) {
      links.push_back(e);
    } else if (!hidden) {
      w.refused.push_back(student_id(e.lexically_relative(root).generic_string()) + ": " +
                          file_type_words(st.st_mode) + ", not a regular file");
    }
  }
  for (const auto& r : regular) {
    const nlink_t found = names[{r.st.st_dev, r.st.st_ino}];
    const std::string rel = student_id(r.path.lexically_relative(root).generic_string());
    if (r.st.st_nlink > found) {
      const auto others = klass.others(r.st, root, found);
      if (!others) {
        w.refused.push_back(rel + ": a hard link (the file has " + std::to_string(r.st.st_nlink) +
                            " names, not all among the class's students' files)");
        continue;
      }
      w.shared.push_back(same_file_clause(rel, *others));
    }
    w.files.push_back({r.path, r.path});
  }
  for (const auto& l : links) {
    fs::path target;
    std::vector<std::string> shared;
    const std::string why = link_refusal(l, root, names, klass, &target, &shared);
    if (why.empty()) {
      w.files.push_back({l, target});
      if (!shared.empty())
        w.shared.push_back(same_file_clause(student_id(l.lexically_relative(root).generic_string()), shared));
    } else {
      w.refused.push_back(student_id(l.lexically_relative(root).generic_string()) + ": " + why);
    }
  }
  std::sort(w.files.begin(), w.files.end(), [](const Found& a, const Found& b) { return a.path < b.path; });
  std::sort(w.refused.begin(), w.refused.end());
  std::sort(w.shared.begin(), w.shared.end());
  return w;
}

/// Longest entry of a note's list ("path: why"), shortened beyond it.
constexpr std::size_t kNoteItemBytes = 200;
/// A data file beside an entry is staged with it when it is at most this
/// big, and while the entry's data files together stay within kDataTotalBytes
/// (MANUAL.md, "Data files beside the code").
constexpr std::uintmax_t kDataFileBytes = 1u << 20;
constexpr std::uintmax_t kDataTotalBytes = 8u << 20;

/// "ignored a.py: a symbolic link ...; ignored b: a FIFO, ..." (at most
/// three, each shortened to kNoteItemBytes, then the count of the others).
/// RefusedFile's words without the file's path ("is larger than N bytes" ->
/// "larger than N bytes (the limit of an answers file: 1 MiB)", kAnswersMaxBytes).
std::string refused_reason(const std::string& refused) {
  const std::size_t at = refused.rfind(" is ");
  std::string why = at == std::string::npos ? refused : refused.substr(at + 4);
  if (why.rfind("larger than ", 0) == 0) why += " (the limit of an answers file: 1 MiB)";
  return why;
}

std::string ignored_clause(const std::vector<std::string>& refused) {
  std::string s;
  for (std::size_t k = 0; k < refused.size() && k < 3; ++k)
    s += (k ? "; " : "") + std::string("ignored ") + shortened(refused[k], kNoteItemBytes);
  if (refused.size() > 3) s += "; and " + std::to_string(refused.size() - 3) + " more ignored";
  return s;
}


/// Why an entry directly in a class folder (`st`: its lstat) is not read, or
/// empty for a regular file with one name, or with several all in other
/// students' files of the class folder (`same` then says which: Walk::shared);
/// a folder is walked on its own.
std::string top_level_refusal(const fs::path& e, const struct stat& st, ClassNames& klass,
                              std::string* same) {
  const std::string shown = student_id(e.filename().string());
  if (S_ISLNK(st.st_mode))
    return shown + " is a symbolic link (attnlab follows no link in a class folder)";
  if (!S_ISREG(st.st_mode)) return shown + " is " + file_type_words(st.st_mode) + ", not a regular file";
  if (st.st_nlink > 1) {
    auto others = klass.others(st, {}, 0);
    if (!others)
      return shown + " is a hard link (the file has " + std::to_string(st.st_nlink) +
             " names, not all among the class's students' files; the teacher's may be one of them)";
    std::erase(*others, shown);
    *same = same_file_clause(shown, *others);
  }
  return "";
}

/// The note of one attempt graded among several: "graded a2.json: latest of
/// 2 ... (not graded: a1.json)".
std::string attempt_note(const std::string& graded, const std::string& why, const std::string& not_graded) {
  return "graded " + graded + ": " + why + " (not graded: " + not_graded + ")";
}

/// Whether an entry graded as `code` can take answers of `answers`.
bool pairs_with(const std::string& code, const std::string& answers) {
  if (code == answers) return true;
  const ExerciseSpec* spec = find_exercise_spec(answers);
  return spec && spec->code_recognised_as == code;  // F4's answers with code recognised as F3
}

/// A C++ header a student's .cpp files may include.
bool is_cpp_header(const fs::path& f) {
  const std::string x = f.extension().string();
  return x == ".hpp" || x == ".h" || x == ".hh" || x == ".hxx";
}

struct Candidate {
  fs::path file;      ///< as found (the notebook itself for a notebook)
  fs::path source;    ///< the regular file read for it (a link's target inside the folder)
  fs::path graded;    ///< what is graded (the Python made from a notebook)
  std::string rel;    ///< below the student's folder
  std::string exercise;  ///< recognised (the one it answers as a whole); empty if not
  bool explicit_line = false;  ///< recognised from a `# exercise:` line
  std::string how;             ///< how it was recognised (recognise.hpp)
  std::vector<std::string> defines;  ///< every exercise it defines (Recognition::defines)
  struct timespec mtime {};          ///< of `source` (lstat(2) st_mtim)
};

/// "attempt.py: F3, answers.json: F4": what a student handed in, by exercise.
std::string other_work(const std::vector<Candidate>& code, const std::vector<Candidate>& answers) {
  std::string out;
  for (const auto* list : {&code, &answers})
    for (const auto& c : *list) out += (out.empty() ? "" : ", ") + c.rel + ": " + c.exercise;
  return out;
}

/// "F2", "F2 and F3", "F1, F2 and F3".
std::string id_list(const std::vector<std::string>& ids) { return listed(ids); }

/// One file graded as one exercise.
struct Entry {
  const Candidate* candidate = nullptr;
  std::string exercise;  ///< the exercise it is graded as; empty: recognised by grade_file
  bool several = false;  ///< its file is graded as more than one exercise in this run
  std::string attempt;   ///< which attempt and why ("latest of 3 attempts ..."); empty: the only one
};

/// The exercises `c` is graded as under `rules`: the fixed one if it
/// defines it (F4 also from an F3-looking file), else none; without one,
/// every exercise it defines that the configuration grades, the one it
/// answers as a whole first.
std::vector<std::string> graded_as(const Candidate& c, const CollectRules& rules) {
  const auto& d = c.defines;
  // Several exercises graded (the configuration's "exercises", --exercise
  // F2,F3): a file whose `# exercise:` line names another is no work of
  // them (not an error row). With one exercise fixed, an F4 file is graded
  // as F3 (one interface: pairs_with), as the examples' partial F3 is.
  if (c.explicit_line && !c.exercise.empty() && rules.exercise.empty() && !rules.graded.empty() &&
      !rules.graded.count(c.exercise))
    return {};
  if (!rules.exercise.empty()) {
    const bool has = std::find(d.begin(), d.end(), rules.exercise) != d.end() ||
                     (!c.exercise.empty() && pairs_with(c.exercise, rules.exercise));
    return has ? std::vector<std::string>{rules.exercise} : std::vector<std::string>{};
  }
  std::vector<std::string> out;
  if (!c.exercise.empty()) out.push_back(c.exercise);
  for (const auto& id : d)
    if (id != c.exercise && (rules.graded.empty() || rules.graded.count(id))) out.push_back(id);
  // One the configuration does not grade stays, so its row says so (grade.hpp).
  if (!c.exercise.empty() && out.size() > 1 && !rules.graded.empty() && !rules.graded.count(c.exercise))
    out.erase(out.begin());
  return out;
}

bool later(const struct timespec& a, const struct timespec& b) {
  return a.tv_sec != b.tv_sec ? a.tv_sec > b.tv_sec : a.tv_nsec > b.tv_nsec;
}

/// How the latest of several files was chosen: " by modification time", and
/// when another of `times` equals the chosen one's `chosen`, that the last
/// by name among them was taken.
std::string by_time(const struct timespec& chosen, const std::vector<struct timespec>& others) {
  const bool tie = std::any_of(others.begin(), others.end(), [&](const struct timespec& t) {
    return !later(chosen, t) && !later(t, chosen);
  });
  return tie ? " by modification time (equal times: the last by name)" : " by modification time";
}

/// Of several attempts at one exercise (in name order), the one graded
/// under `rules` and why; every one for Attempts::best.
std::vector<Entry> choose_attempts(std::vector<Entry> attempts, const CollectRules& rules,
                                   const std::string& exercise) {
  const std::size_t n = attempts.size();
  if (n <= 1) return attempts;
  const std::string count = std::to_string(n) + " attempts at " + exercise;
  if (rules.attempts == Attempts::best) {
    for (auto& e : attempts)
      e.attempt = "one of " + count + ", all graded (attempts \"best\": the best counts)";
    return attempts;
  }
  std::string others;
  auto pick = [&](std::size_t k, const std::string& why) {
    for (std::size_t j = 0; j < n; ++j)
      if (j != k) others += (others.empty() ? "" : ", ") + attempts[j].candidate->rel;
    Entry e = attempts[k];
    e.attempt = attempt_note(e.candidate->rel, why, others);
    return std::vector<Entry>{e};
  };
  std::string missing;
  if (rules.attempts == Attempts::named) {
    for (std::size_t k = 0; k < n; ++k) {
      const Candidate& c = *attempts[k].candidate;
      if (c.rel == rules.entry || c.file.filename() == rules.entry)
        return pick(k, "the file the teacher configuration names as entry, of " + count);
    }
    missing = "no file is the configuration's entry " + rules.entry + "; ";
  }
  std::size_t last = 0;
  for (std::size_t k = 1; k < n; ++k)
    if (!later(attempts[last].candidate->mtime, attempts[k].candidate->mtime)) last = k;
  std::vector<struct timespec> times;
  for (std::size_t k = 0; k < n; ++k)
    if (k != last) times.push_back(attempts[k].candidate->mtime);
  return pick(last, missing + "latest of " + count + by_time(attempts[last].candidate->mtime, times));
}

/// The entries among `code` (in name order) under `rules`: each file graded
/// as each exercise it is graded as (graded_as), then one attempt per
/// exercise (choose_attempts). In file order, a file's exercises together.
std::vector<Entry> choose_entries(const std::vector<Candidate>& code, const CollectRules& rules) {
  std::map<std::string, std::vector<Entry>> by_exercise;
  for (const auto& c : code) {
    const std::vector<std::string> as = graded_as(c, rules);
    for (const auto& id : as) {
      // A file of one exercise is recognised again by grade_file (its header says how).
      const std::string ex = as.size() > 1 || c.defines.size() > 1 || !rules.exercise.empty() ? id : "";
      by_exercise[id].push_back(Entry{&c, ex, as.size() > 1, ""});
    }
  }
  std::vector<Entry> chosen;
  for (auto& [id, attempts] : by_exercise)
    for (auto& e : choose_attempts(std::move(attempts), rules, id)) chosen.push_back(e);
  // Back to file order; within a file, the order graded_as gave.
  std::stable_sort(chosen.begin(), chosen.end(), [](const Entry& a, const Entry& b) {
    return a.candidate < b.candidate;
  });
  for (auto it = chosen.begin(); it != chosen.end();) {
    auto end = std::find_if(it, chosen.end(), [&](const Entry& e) { return e.candidate != it->candidate; });
    const std::vector<std::string> as = graded_as(*it->candidate, rules);
    std::stable_sort(it, end, [&](const Entry& a, const Entry& b) {
      auto rank = [&](const Entry& e) {
        return std::find(as.begin(), as.end(), e.exercise.empty() ? as.front() : e.exercise) - as.begin();
      };
      return rank(a) < rank(b);
    });
    it = end;
  }
  return chosen;
}

/// The choice's label of entry `e` graded as `exercise` ("entry a.py (defines F2 and F3; graded as F2)").
std::string entry_label(const Entry& e, const std::string& exercise, const CollectRules& rules,
                        std::size_t code_files) {
  const Candidate& c = *e.candidate;
  std::string label = "entry " + c.rel;
  if (c.defines.empty() && c.exercise.empty())
    return label + (code_files == 1 ? " (the only code file" : " (it defines no exercise's function") +
           (rules.exercise.empty() ? std::string(")") : "; graded as " + rules.exercise + ", the exercise fixed for this run)");
  const std::vector<std::string> defines = c.defines.empty() ? std::vector<std::string>{c.exercise} : c.defines;
  const bool fixed_elsewhere = !rules.exercise.empty() && !pairs_with(c.exercise, rules.exercise) &&
                               std::find(defines.begin(), defines.end(), rules.exercise) == defines.end();
  if (fixed_elsewhere)  // a fallback: the fixed exercise is not what the file defines
    return label + " (defines " + id_list(defines) + "; graded as " + rules.exercise +
           ", the exercise fixed for this run)";
  if (defines.size() > 1 || (!exercise.empty() && !pairs_with(defines.front(), exercise)))
    return label + " (defines " + id_list(defines) + "; graded as " + exercise + ")";
  label += " (defines " + exercise;
  // A file defining several exercises' functions says which one it answers and why.
  if (c.how.find(", which uses ") != std::string::npos && e.exercise.empty()) label += ": " + c.how;
  return label + ")";
}

class Collector {
 public:
  Collector(CollectRules rules, ClassInputs& out)
      : rules_(std::move(rules)), exercise_(rules_.exercise), out_(out) {}

  /// The students's files below `dir` (walk_student); `student` names it,
  /// `prefix` the reports ("alice/"); `refused` (entries an archive left
  /// out) is added to what the walk refused. Returns false if it holds
  /// nothing gradable.
  bool student(const fs::path& dir, const std::string& student, const std::string& prefix,
               const std::optional<fs::path>& excluded, std::string* why,
               std::vector<std::string> refused = {}) {
    std::error_code ec;
    unreadable_ = false;
    const fs::path root = fs::canonical(dir, ec);
    if (ec) {
      if (why) *why = "its folder cannot be read: " + ec.message();
      return false;
    }
    const std::size_t inputs_before = out_.inputs.size();
    Sorted files;
    ClassNames none({}, std::nullopt);  // an archive's or an upload's files: no class around them
    Walk walk = walk_student(root, excluded, klass_ && !in_archive_ ? *klass_ : none);
    refused.insert(refused.end(), walk.refused.begin(), walk.refused.end());
    for (const auto& u : walk.unreadable) refused.push_back(u + ": permission denied");
    std::sort(refused.begin(), refused.end());
    for (const auto& [f, src] : walk.files) sort_file(f, src, root, student, files);
    if (files.code.empty() && files.answers.empty()) {
      if (!walk.unreadable.empty()) {
        // Work the grader may not read is not gradable (a blank LMS cell), not "nothing".
        unreadable_ = true;
        std::string paths;
        for (std::size_t k = 0; k < walk.unreadable.size() && k < 3; ++k)
          paths += (k ? "; " : "") +
                   (walk.unreadable[k] == "." ? dir.string() : shown_path(dir, walk.unreadable[k])) +
                   ": permission denied";
        if (walk.unreadable.size() > 3) paths += "; and " + std::to_string(walk.unreadable.size() - 3) + " more";
        if (why) *why = "it cannot be read: " + paths + " (make it readable to the grader and regrade)";
        return false;
      }
      if (why) *why = nothing_clause(files.others, refused);
      for (const auto& o : files.others) out_.ignored.push_back(shown_path(dir, o));
      return false;
    }
    refused.insert(refused.end(), files.refused_answers.begin(), files.refused_answers.end());
    std::string noted = ignored_clause(refused);
    for (const auto& same : walk.shared) noted += (noted.empty() ? "" : "; ") + same;
    Student s{student, prefix, root, noted};
    // The entries: recognised files (of the fixed exercise, if one is fixed).
    std::vector<Entry> entries = choose_entries(files.code, rules_);
    std::string note;
    // With the exercise fixed, work that is all recognised as other exercises
    // is not a try at this one: no entry (the student has no submission of it).
    // (F3 and F4 share one interface: pairs_with.)
    const bool only_others =
        !exercise_.empty() && std::all_of(files.code.begin(), files.code.end(), [&](const Candidate& c) {
          return !c.exercise.empty() && !pairs_with(c.exercise, exercise_) &&
                 !pairs_with(exercise_, c.exercise);
        });
    if (entries.empty() && !files.code.empty() && (files.answers.empty() || !exercise_.empty()) &&
        !only_others) {
      entries.push_back(Entry{&files.code.front(), exercise_, false, ""});
      note = files.code.size() == 1 ? "" : "no file defines the exercise's function; graded the first "
                                           "code file in name order";
    }
    std::set<const Candidate*> used_answers;
    for (const Entry& e : entries) add_entry(e, files, s, note, used_answers);
    for (const auto& a : files.answers) {
      if (used_answers.count(&a) || (!exercise_.empty() && a.exercise != exercise_)) continue;
      if (!entries.empty() && !exercise_.empty()) continue;
      if (!rules_.graded.empty() && !rules_.graded.count(a.exercise)) continue;  // not graded here
      if (answers_left_out(a, files, used_answers)) continue;  // another attempt is graded
      BatchInput in = input_of(s, a.source, prefix + a.rel);
      in.choice = "answers " + a.rel + " alone (no code file of " + a.exercise + ")";
      if (const std::string attempt = answers_attempt(a, files); !attempt.empty()) {
        in.choice += "; " + attempt;
        in.notes.push_back(attempt);
      }
      if (!in.refused.empty()) in.choice += "; " + in.refused;
      out_.inputs.push_back(std::move(in));
    }
    for (const auto& o : files.others)
      if (std::none_of(files.broken_answers.begin(), files.broken_answers.end(),
                       [&](const Candidate& b) { return used_answers.count(&b) && b.rel == o; }))
        out_.ignored.push_back(shown_path(dir, o));
    if (out_.inputs.size() == inputs_before) {  // only other exercises' work
      std::string of = exercise_;
      if (of.empty())  // the configuration's "exercises" (--exercise F2,F3): "F2/F3"
        for (const auto& g : rules_.graded) of += (of.empty() ? "" : "/") + g;
      if (why) *why = "it holds no work of " + of + " (" + other_work(files.code, files.answers) + ")";
      return false;
    }
    return true;
  }

 /// How a file `rel` below the student's folder `dir` is named to the
  /// teacher: its path, or in an archive the archive's path and the member's
  /// ("class/ivan.tar.gz: hw/README.txt"), never the temporary folder it was
  /// unpacked into, which is gone by the time the teacher reads it.
  std::string shown_path(const fs::path& dir, const std::string& rel) const {
    if (!in_archive_) return (dir / rel).string();
    return archive_shown_ + ": " + (dir / rel).lexically_relative(archive_dir_).generic_string();
  }

 /// A student who handed in nothing attnlab grades: a row of its own (batch.hpp).
  void nothing(const std::string& student, const std::string& why, bool unreadable = false) {
    BatchInput in;
    in.name = student + "/";
    in.student = student;
    in.exercise = exercise_;
    in.no_submission = why;
    in.unreadable = std::exchange(unreadable_, false) || unreadable;
    out_.inputs.push_back(std::move(in));
  }

 /// A loose file: a student of its own, named `name` (a notebook is
  /// converted); a file defining several exercises is one input per
  /// exercise (class_folder.hpp). `root`: the class folder it lies in,
  /// below which it is read without following links (empty: a file the
  /// user named).
  void loose(const fs::path& file, const std::string& name, const fs::path& root = {},
             const std::string& noted = {}) {
    BatchInput in;
    in.file = file;
    in.name = name;
    in.student = name;
    in.exercise = exercise_;
    in.root = root;
    in.refused = noted;
    fs::path graded = file;
    if (is_notebook(file)) {
      graded = convert(file, file, name);
      if (!graded.empty()) in.choice = "entry " + name + ", its code cells";
    }
    Candidate c{file, file, graded, name, "", false, "", {}, {}};
    if (exercise_.empty() && !graded.empty() && !is_answers_file(file)) recognise_into(c);
    const std::vector<std::string> as = graded_as(c, rules_);
    if (as.size() <= 1) {
      out_.inputs.push_back(std::move(in));
      return;
    }
    for (const auto& id : as) {
      BatchInput each = in;
      each.exercise = id;
      each.name = name + " (" + id + ")";
      each.choice = entry_label(Entry{&c, id, true, ""}, id, rules_, 1) +
                    (in.choice.empty() ? "" : ", its code cells");
      out_.inputs.push_back(std::move(each));
    }
  }

 /// An archive (zip or tar, unpack_archive.hpp): unpacked into a folder of
  /// its own below the run's temporary folder (BatchInput::scratch, removed
  /// once the student is graded), then a student folder named `name`.
  /// False (and `why`) if it cannot be unpacked, is over a budget, or
  /// holds nothing gradable; its folder is then removed at once.
  bool archive(const fs::path& file, const std::string& name, const std::optional<fs::path>& excluded,
               std::string* why) {
    fs::path scratch;
    const std::string shown = "its archive " + student_id(file.filename().string());
    try {
      if (!out_.converted) out_.converted = std::make_shared<TempDir>("attnlab-notebooks-");
      scratch = out_.converted->path() / ("student-" + std::to_string(++converted_));
      const fs::path dir = scratch / "archive";
      fs::create_directories(dir);
      const Unpacked u = unpack_archive(file, dir);
      // An archive holding one folder: that folder is the student's.
      fs::path root = dir;
      std::vector<fs::path> top;
      for (const auto& e : fs::directory_iterator(dir))
        if (!hidden_name(e.path()) && e.path().filename() != "__MACOSX") top.push_back(e.path());
      if (top.size() == 1 && fs::is_directory(fs::symlink_status(top.front()))) root = top.front();
      const std::size_t first = out_.inputs.size();
      scratch_ = scratch;
      archive_shown_ = (file.parent_path() / student_id(file.filename().string())).string();
      archive_dir_ = dir;
      in_archive_ = true;
      const bool ok = student(root, name, name + "/", excluded, why, u.skipped);
      in_archive_ = false;
      scratch_.clear();
      for (std::size_t k = first; k < out_.inputs.size(); ++k) {
        out_.inputs[k].scratch = scratch;
        if (!u.warnings.empty())
          out_.inputs[k].choice += "; the archive's reader warned: " + shortened(u.warnings.front(), kNoteItemBytes);
      }
      if (!ok) fs::remove_all(scratch);
      return ok;
    } catch (const ArchiveRefused& e) {
      *why = shown + " " + shortened(e.what(), kNoteItemBytes) + "; nothing of it is graded";
    } catch (const std::exception& e) {
      *why = shown + " cannot be unpacked: " + shortened(e.what(), kNoteItemBytes);
    }
    scratch_.clear();
    in_archive_ = false;
    std::error_code ec;
    if (!scratch.empty()) fs::remove_all(scratch, ec);
    return false;
  }

  /// The names of hard-linked files of the class folder being collected
  /// (ClassNames); null: none (an upload).
  void set_class(ClassNames* klass) { klass_ = klass; }

 private:
  /// A student's files by kind, each in name order.
  struct Sorted {
    std::vector<Candidate> code, answers, headers;
    /// Data files (non-code, at most kDataFileBytes each): staged beside the entry.
    std::vector<Candidate> data;
    std::vector<std::string> others;  ///< below the student's folder
    /// .json files that are not valid JSON (truncated, NaN, 1e400, a member
    /// given twice: answers.cpp parse_file): a broken answers file, paired
    /// with an entry whose exercise takes answers and has none, so its
    /// report says why the answers points are lost (also among the data
    /// files, which it stays when nothing pairs with it).
    std::vector<Candidate> broken_answers;
    /// .json files not read at all (answers.cpp: too large, a FIFO...), each
    /// "PATH: why", said in the row's note ("ignored ...").
    std::vector<std::string> refused_answers;
  };

  /// The student being collected.
  struct Student {
    std::string name, prefix;
    fs::path root;
    std::string refused;  ///< ignored_clause of what its walk refused
  };

  /// Recognises c.graded into c (exercise, how, defines).
  static void recognise_into(Candidate& c) {
    const Recognition r = recognise_exercise(c.graded);
    c.defines = r.defines;
    if (r.status != Recognition::Status::recognised) return;
    c.exercise = r.exercise;
    c.explicit_line = r.how.rfind("it has", 0) == 0;  // the `# exercise:` line
    c.how = r.how;
  }

  /// Files `f` (read from `src`) of the student's folder `root` into its kind.
  void sort_file(const fs::path& f, const fs::path& src, const fs::path& root,
                 const std::string& student, Sorted& files) {
    const std::string rel = student_id(f.lexically_relative(root).generic_string());
    if (is_answers_file(f)) {
      const Recognition r = recognise_exercise(src);
      if (r.status == Recognition::Status::recognised) {
        Candidate a{f, src, src, rel, r.exercise, false, "", {}, {}};
        struct stat st {};
        if (::lstat(src.c_str(), &st) == 0) a.mtime = st.st_mtim;
        files.answers.push_back(a);
        return;
      }
      // Not paired (no entry of an exercise with answers): a data file, as before.
      if (const AnswersExercise a = read_answers_exercise(src);
          a.refused.empty() && a.problem.rfind("it is not valid JSON", 0) == 0)
        files.broken_answers.push_back({f, src, src, rel, "", false, "", {}, {}});
      else if (!a.refused.empty())
        files.refused_answers.push_back(rel + ": not read as an answers file: " + refused_reason(a.refused));
      add_data(f, src, rel, files);  // a .json that is not an answers file: a data file
      return;
    }
    if (is_cpp_header(f)) {  // never an entry; staged beside the entry for #include "..."
      files.headers.push_back({f, src, src, rel, "", false, "", {}, {}});
      return;
    }
    if (!is_code(f)) {
      add_data(f, src, rel, files);
      return;
    }
    Candidate c{f, src, src, rel, "", false, "", {}, {}};
    struct stat st {};
    if (::lstat(src.c_str(), &st) == 0) c.mtime = st.st_mtim;
    if (is_notebook(f)) c.graded = convert(src, f, student + "/" + rel);
    if (!c.graded.empty()) recognise_into(c);
    files.code.push_back(c);
  }

  /// A non-code file `f` (read from `src`, a regular file the walk accepted
  /// inside the student's folder): a data file the entry may open when it is
  /// small enough (kDataFileBytes), else only named among the others.
  static void add_data(const fs::path& f, const fs::path& src, const std::string& rel, Sorted& files) {
    files.others.push_back(rel);
    struct stat st {};
    if (::lstat(src.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
        static_cast<std::uintmax_t>(st.st_size) > kDataFileBytes)
      return;
    files.data.push_back({f, src, src, rel, "", false, "", {}, {}});
  }

  /// Why a folder with no code and no answers file is not graded.
  static std::string nothing_clause(const std::vector<std::string>& others,
                                    const std::vector<std::string>& refused) {
    std::string listed;
    for (std::size_t k = 0; k < others.size() && k < 3; ++k)
      listed += (k ? ", " : ": ") + shortened(others[k]);
    if (others.size() > 3) listed += ", ...";
    std::string why = others.empty() && refused.empty() ? "the folder is empty"
                      : others.empty() ? "nothing in it can be read"
                                       : "it holds no .py, .cpp, .ipynb or answers .json file (" +
                                             std::to_string(others.size()) + " other file" +
                                             (others.size() == 1 ? "" : "s") + listed + ")";
    if (!refused.empty()) why += "; " + ignored_clause(refused);
    return why;
  }

  BatchInput input_of(const Student& s, const fs::path& file, const std::string& name) const {
    BatchInput in;
    in.file = file;
    in.name = name;
    in.student = s.name;
    in.exercise = exercise_;
    in.root = s.root;
    in.refused = s.refused;
    return in;
  }

  /// The answers file (unused yet) for an entry graded as `exercise`: one of
  /// that exercise, else (an F3-looking entry, the exercise not fixed) F4's.
  /// Of several answers files of one exercise, one is a student's attempt as
  /// a code file is (choose_attempts): the latest by modification time, but
  /// with attempts "best" each in turn (the first unused, in name order).
  const Candidate* answers_for(const std::string& exercise, const Sorted& files,
                               const std::set<const Candidate*>& used) const {
    for (const bool exact : {true, false}) {
      const Candidate* found = nullptr;
      for (const auto& a : files.answers)
        if (!used.count(&a) && (exact ? a.exercise == exercise : pairs_with(exercise, a.exercise)) &&
            (exercise_.empty() || a.exercise == exercise_)) {
          if (rules_.attempts == Attempts::best) return &a;
          if (!found || !later(found->mtime, a.mtime)) found = &a;
        }
      if (found) return found;
    }
    return nullptr;
  }

  /// The answers files of `a`'s exercise other than `a` (in name order), when
  /// one attempt is graded (not attempts "best"): not graded.
  std::vector<const Candidate*> other_answers(const Candidate& a, const Sorted& files) const {
    std::vector<const Candidate*> out;
    if (rules_.attempts == Attempts::best) return out;
    for (const auto& b : files.answers)
      if (&b != &a && b.exercise == a.exercise) out.push_back(&b);
    return out;
  }

  /// The note for answers file `a` graded as one of several of its exercise
  /// ("graded a2.json: latest of 2 answers files of F4 by modification time
  /// (not graded: a1.json)"); empty when it is the only one.
  std::string answers_attempt(const Candidate& a, const Sorted& files) const {
    const std::vector<const Candidate*> others = other_answers(a, files);
    if (others.empty()) return "";
    std::string names;
    std::vector<struct timespec> times;
    for (const Candidate* b : others) {
      names += (names.empty() ? "" : ", ") + b->rel;
      times.push_back(b->mtime);
    }
    return attempt_note(a.rel, "latest of " + std::to_string(others.size() + 1) + " answers files of " +
                                   a.exercise + by_time(a.mtime, times),
                        names);
  }

  /// Whether answers file `a`, unused, is another attempt of an exercise
  /// whose answers file is graded or later (other_answers): not graded.
  bool answers_left_out(const Candidate& a, const Sorted& files,
                        const std::set<const Candidate*>& used) const {
    for (const Candidate* b : other_answers(a, files))
      if (used.count(b) || later(b->mtime, a.mtime) || (!later(a.mtime, b->mtime) && b > &a))
        return true;
    return false;
  }

  /// A broken answers file (Sorted::broken_answers, unused yet) for an entry
  /// graded as `exercise` when that exercise takes an answers file.
  static const Candidate* broken_answers_for(const std::string& exercise, const Sorted& files,
                                             const std::set<const Candidate*>& used) {
    if (exercise.empty()) return nullptr;
    try {
      if (!load_exercise(exercise).has_answers()) return nullptr;
    } catch (const std::exception&) {
      return nullptr;
    }
    for (const auto& a : files.broken_answers)
      if (!used.count(&a)) return &a;
    return nullptr;
  }

  /// The input of entry `e` with its answers file and helpers, and its choice.
  void add_entry(const Entry& e, const Sorted& files, const Student& s, const std::string& note,
                 std::set<const Candidate*>& used_answers) {
    const Candidate& c = *e.candidate;
    BatchInput in = input_of(s, is_notebook(c.file) ? c.file : c.graded, "");  // grade_file reads a notebook
    if (!e.exercise.empty()) in.exercise = e.exercise;
    const std::string graded = e.exercise.empty() ? c.exercise : e.exercise;
    const Candidate* paired = graded.empty() ? nullptr : answers_for(graded, files, used_answers);
    if (paired) {
      used_answers.insert(paired);
      in.answers = paired->source;
      // An F3-looking file with F4 answers is an F4 attempt.
      if (!c.explicit_line) in.exercise = paired->exercise;
    } else if (const Candidate* broken = broken_answers_for(graded, files, used_answers)) {
      // Graded as its answers: check_answers says it is not valid JSON, and where.
      paired = broken;
      used_answers.insert(broken);
      in.answers = broken->source;
    }
    in.name = s.prefix + c.rel + (e.several ? " (" + in.exercise + ")" : "");
    std::string helpers;
    std::vector<const Candidate*> others_of_entry;
    for (const auto& h : files.code) others_of_entry.push_back(&h);
    for (const auto& h : files.headers) others_of_entry.push_back(&h);
    const std::size_t code_helpers = others_of_entry.size();
    for (const auto& h : files.data) others_of_entry.push_back(&h);
    std::string data;
    std::uintmax_t data_bytes = 0;
    for (std::size_t k = 0; k < others_of_entry.size(); ++k) {
      const Candidate* h = others_of_entry[k];
      if (h == &c) continue;
      const fs::path rel = h->file.lexically_relative(c.file.parent_path());
      if (rel.empty() || *rel.begin() == "..") continue;  // above the entry: not importable
      if (k >= code_helpers) {  // a data file, within the student's total cap
        std::error_code ec;
        const std::uintmax_t bytes = fs::file_size(h->source, ec);
        if (ec || data_bytes + bytes > kDataTotalBytes) continue;
        data_bytes += bytes;
        in.helpers.push_back({h->source, rel});
        data += (data.empty() ? "" : ", ") + h->rel;
        continue;
      }
      in.helpers.push_back({h->source, rel});
      helpers += (helpers.empty() ? "" : ", ") + h->rel;
    }
    if (is_notebook(c.file) && !c.graded.empty())
      for (const auto& [src, rel] : in.helpers) copy_beside(src, c.graded.parent_path() / rel, s.root);
    in.choice = entry_label(e, in.exercise.empty() ? c.exercise : in.exercise, rules_, files.code.size());
    if (is_notebook(c.file)) in.choice += ", its code cells";
    if (!e.attempt.empty()) {
      in.choice += "; " + e.attempt;
      in.notes.push_back(e.attempt);
    }
    if (paired) in.choice += "; answers " + paired->rel;
    if (paired && !paired->exercise.empty())
      if (const std::string attempt = answers_attempt(*paired, files); !attempt.empty()) {
        in.choice += " (" + attempt + ")";
        in.notes.push_back(attempt);
      }
    if (!helpers.empty()) in.choice += "; helpers: " + helpers;
    if (!data.empty()) in.choice += "; data files: " + data;
    if (!note.empty()) in.choice += "; " + note;
    if (!in.refused.empty()) in.choice += "; " + in.refused;
    out_.inputs.push_back(std::move(in));
  }

  /// The Python of a notebook (read from `source`, named as `notebook`), in
  /// a folder of its own below the run's temporary folder (below the
  /// student's scratch folder while an archive's student is collected).
  fs::path convert(const fs::path& source, const fs::path& notebook, const std::string& name) {
    try {
      if (!out_.converted) out_.converted = std::make_shared<TempDir>("attnlab-notebooks-");
      const fs::path dir =
          (scratch_.empty() ? out_.converted->path() : scratch_) / std::to_string(++converted_);
      fs::create_directories(dir);
      const fs::path py = dir / (notebook.stem().string() + ".py");
      std::ofstream(py) << "# converted by attnlab from " << name << "\n"
                        << notebook_to_python(source);
      return py;
    } catch (const std::runtime_error&) {
      return {};  // not a notebook after all: graded as it is (and refused there)
    }
  }
  /// A helper of a notebook's entry copied beside its Python, read below
  /// the student's folder `root` without following links (no_follow.hpp).
  static void copy_beside(const fs::path& src, const fs::path& dest, const fs::path& root) {
    std::error_code ec;
    fs::create_directories(dest.parent_path(), ec);
    try {
      copy_no_follow(src, dest, 0644, root);
    } catch (const std::exception&) {
      // not copied: the staged copy refuses it too (sandbox.hpp StagedSubmission)
    }
  }

  CollectRules rules_;
  std::string exercise_;  ///< rules_.exercise
  ClassInputs& out_;
  int converted_ = 0;
  fs::path scratch_;  ///< the scratch folder of the archive's student being collected
  ClassNames* klass_ = nullptr;
  bool in_archive_ = false;  ///< collecting an archive's student (its files are no class folder's)
  /// The last student() refused found only what the grader may not read
  /// (Walk::unreadable): nothing() makes its row "not gradable".
  bool unreadable_ = false;
  std::string archive_shown_;  ///< while in_archive_: the archive as the teacher names it
  fs::path archive_dir_;       ///< while in_archive_: the folder it was unpacked into
};

}  // namespace

std::string student_id(const std::string& name) { return escaped_name(name); }

bool in_shard(const std::string& name, int k, int n) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return n <= 1 || static_cast<int>(h % static_cast<std::uint64_t>(n)) == k - 1;
}

bool is_attnlab_output(const fs::path& dir) {
  struct stat st {};
  if (::lstat((dir / kLockFile).c_str(), &st) == 0 && S_ISREG(st.st_mode)) return true;
  struct stat reports {};
  return ::lstat((dir / "summary.json").c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         ::lstat((dir / kReportsFolder).c_str(), &reports) == 0 && S_ISDIR(reports.st_mode);
}

CollectRules collect_rules(const std::string& exercise, const TeacherConfig* config) {
  CollectRules r;
  r.exercise = exercise;
  if (config) {
    for (const auto& [id, _] : config->exercises) r.graded.insert(id);
    if (config->entry) r.entry = *config->entry;
  }
  r.attempts = attempt_policy(config);
  return r;
}

ClassInputs collect_class(const std::vector<fs::path>& paths, const std::optional<fs::path>& exclude,
                          const CollectRules& rules,
                          const std::function<bool(const std::string&)>& wanted) {
  ClassInputs out;
  Collector collect(rules, out);
  std::error_code ec;
  const std::optional<fs::path> excluded =
      exclude ? std::optional<fs::path>(fs::weakly_canonical(*exclude, ec)) : std::nullopt;
  std::set<std::string> students;
  // Two students with one id (a folder and an archive of one name, two
  // paths given): the second is "<id>%~2". student_id writes every '%' of a
  // name as %25, so "%~" is in no id of a real folder.
  auto unique = [&](std::string name) {
    std::string u = name;
    for (int k = 2; students.count(u); ++k) u = name + kDuplicateMark + std::to_string(k);
    students.insert(u);
    return u;
  };

  // A student not asked for (--students, --shard) is neither walked nor
  // unpacked; unique() still names it, so ids stay those of the whole class.
  auto skipped = [&](const std::string& name) { return wanted && !wanted(name); };
  for (const auto& p : paths) {
    if (!fs::exists(p, ec)) throw std::invalid_argument("no such file or folder: " + p.string());
    if (!fs::is_directory(p, ec)) {
      collect.loose(p, unique(student_id(p.lexically_normal().string())));
      continue;
    }
    std::vector<fs::path> entries;
    for (auto it = fs::directory_iterator(p, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
      entries.push_back(it->path());
    std::sort(entries.begin(), entries.end());
    const fs::path class_root = fs::canonical(p, ec);
    ClassNames klass(class_root, excluded);
    collect.set_class(&klass);
    for (const auto& e : entries) {
      if (hidden_name(e)) continue;
      struct stat st {};
      if (::lstat(e.c_str(), &st) != 0) continue;
      const auto stem = archive_stem(e);
      if (S_ISDIR(st.st_mode)) {
        if (excluded && fs::weakly_canonical(e, ec) == *excluded) continue;
        if (is_attnlab_output(e)) {  // an earlier run's --out: never a student
          out.outputs.push_back(e.string());
          continue;
        }
        const std::string name = unique(student_id(e.filename().string()));
        if (skipped(name)) continue;
        std::string why;
        if (!collect.student(e, name, name + "/", excluded, &why)) collect.nothing(name, why);
      } else if (std::string same, why = top_level_refusal(e, st, klass, &same); !why.empty()) {
        // A link, a device, a FIFO, a file with other names: never read.
        if (stem || is_answers_file(e) || is_code_name(e) || fs::is_directory(e, ec)) {
          const std::string name = unique(student_id(stem ? *stem : e.filename().string()));
          if (!skipped(name)) collect.nothing(name, why);
        } else {
          out.ignored.push_back(e.string());
        }
      } else if (stem) {
        const std::string name = unique(student_id(*stem));
        if (skipped(name)) continue;
        std::string why2;
        const std::size_t first = out.inputs.size();
        if (!collect.archive(e, name, excluded, &why2)) collect.nothing(name, why2);
        for (std::size_t k = first; !same.empty() && k < out.inputs.size(); ++k)
          out.inputs[k].refused += (out.inputs[k].refused.empty() ? "" : "; ") + same;
      } else if ((is_answers_file(e) || is_code_name(e)) && permission_denied(e, false)) {
        // A student's file the grader may not read: not gradable, named (Walk::unreadable).
        const std::string name = unique(student_id(e.filename().string()));
        if (!skipped(name)) collect.nothing(name, "it cannot be read: " + e.string() + ": permission denied", true);
      } else if (is_answers_file(e) && !read_answers_exercise(class_root / e.filename(), class_root).exercise) {
        // As in a student's folder: a .json that names no exercise is a data
        // file, not an answers file; directly in the class folder it is
        // usually the teacher's configuration or answer key, and nobody's.
        out.ignored.push_back(e.string());
      } else if (is_answers_file(e) || is_code(e)) {
        const std::string name = unique(student_id(e.filename().string()));
        if (!skipped(name)) collect.loose(class_root / e.filename(), name, class_root, same);
      } else {
        out.ignored.push_back(e.string());
      }
    }
    collect.set_class(nullptr);
  }
  return out;
}

ClassInputs collect_upload(const fs::path& folder, const CollectRules& rules, std::string* why) {
  ClassInputs out;
  std::error_code ec;
  if (!fs::is_directory(folder, ec))
    throw std::invalid_argument("no such folder: " + folder.string());
  Collector collect(rules, out);
  collect.student(folder, "", "", std::nullopt, why);
  return out;
}

}  // namespace attn::grader

// A class folder: students, their entries, answers and helpers (see class_folder.hpp).
#include "grading/class_folder.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

#include "sandbox/run_command.hpp"
#include "submission/notebook.hpp"
#include "submission/recognise.hpp"
#include "submission/submission.hpp"

namespace attn::grader {
namespace {

namespace fs = std::filesystem;

bool hidden_name(const fs::path& p) {
  const std::string n = p.filename().string();
  return (!n.empty() && n[0] == '.') || n == "__pycache__";
}

bool is_code(const fs::path& p) { return is_notebook(p) || detect_language(p).has_value(); }

/// The first line of a tool's message, at most 200 bytes.
std::string first_line(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  return line.size() > 200 ? line.substr(0, 200) + "..." : line;
}

/// ".zip", ".tar.gz", ".tgz", ".tar" (any case): a student's archive; its name without them.
std::optional<std::string> archive_stem(const fs::path& p) {
  std::string name = p.filename().string(), lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const std::string ext : {".tar.gz", ".tgz", ".zip", ".tar"})
    if (lower.size() > ext.size() && lower.compare(lower.size() - ext.size(), ext.size(), ext) == 0)
      return name.substr(0, name.size() - ext.size());
  return std::nullopt;
}

/// Every file below `dir` in name order, hidden entries and `excluded` skipped.
std::vector<fs::path> files_below(const fs::path& dir, const std::optional<fs::path>& excluded) {
  std::vector<fs::path> files;
  std::error_code ec;
  auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::path& e = it->path();
    const bool is_dir = it->is_directory(ec);
    if (hidden_name(e) || (is_dir && excluded && fs::weakly_canonical(e, ec) == *excluded)) {
      if (is_dir) it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec)) files.push_back(e);
  }
  std::sort(files.begin(), files.end());
  return files;
}

/// Whether an entry recognised as `code` can take answers of `answers`.
bool pairs_with(const std::string& code, const std::string& answers) {
  return code == answers || (code == "F3" && answers == "F4");
}

/// A C++ header a student's .cpp files may include.
bool is_cpp_header(const fs::path& f) {
  const std::string x = f.extension().string();
  return x == ".hpp" || x == ".h" || x == ".hh" || x == ".hxx";
}

struct Candidate {
  fs::path file;      ///< as found (the notebook itself for a notebook)
  fs::path graded;    ///< what is graded (the Python made from a notebook)
  std::string rel;    ///< below the student's folder
  std::string exercise;  ///< recognised; empty if not
  bool explicit_line = false;  ///< recognised from a `# exercise:` line
  std::string how;             ///< how it was recognised (recognise.hpp)
};

class Collector {
 public:
  Collector(std::string exercise, ClassInputs& out) : exercise_(std::move(exercise)), out_(out) {}

  /// The students's files below `dir`; `student` names it, `prefix` the
  /// reports ("alice/"). Returns false if it holds nothing gradable.
  bool student(const fs::path& dir, const std::string& student, const std::string& prefix,
               const std::optional<fs::path>& excluded, std::string* why) {
    std::vector<Candidate> code, answers, headers;
    std::vector<std::string> others;
    for (const auto& f : files_below(dir, excluded)) {
      const std::string rel = student_id(f.lexically_relative(dir).generic_string());
      if (is_answers_file(f)) {
        const Recognition r = recognise_exercise(f);
        if (r.status == Recognition::Status::recognised) {
          answers.push_back({f, f, rel, r.exercise, false, ""});
          continue;
        }
        others.push_back(rel);  // a .json that is not an answers file: a data file
        continue;
      }
      if (is_cpp_header(f)) {  // never an entry; staged beside the entry for #include "..."
        headers.push_back({f, f, rel, "", false, ""});
        continue;
      }
      if (!is_code(f)) {
        others.push_back(rel);
        continue;
      }
      Candidate c{f, f, rel, "", false, ""};
      if (is_notebook(f)) c.graded = convert(f, student + "/" + rel);
      if (!c.graded.empty()) {
        const Recognition r = recognise_exercise(c.graded);
        if (r.status == Recognition::Status::recognised) {
          c.exercise = r.exercise;
          c.explicit_line = r.how.rfind("it has", 0) == 0;  // the `# exercise:` line
          c.how = r.how;
        }
      }
      code.push_back(c);
    }
    if (code.empty() && answers.empty()) {
      if (why) {
        std::string listed;
        for (std::size_t k = 0; k < others.size() && k < 3; ++k)
          listed += (k ? ", " : ": ") + others[k];
        if (others.size() > 3) listed += ", ...";
        *why = others.empty() ? "the folder is empty"
                              : "it holds no .py, .cpp, .ipynb or answers .json file (" +
                                    std::to_string(others.size()) + " other file" +
                                    (others.size() == 1 ? "" : "s") + listed + ")";
      }
      for (const auto& o : others) out_.ignored.push_back((dir / o).string());
      return false;
    }

    // The entries: recognised files (of the fixed exercise, if one is fixed).
    std::vector<const Candidate*> entries;
    for (const auto& c : code)
      if (!c.exercise.empty() && (exercise_.empty() || pairs_with(c.exercise, exercise_) ||
                                  c.exercise == exercise_))
        entries.push_back(&c);
    std::string note;
    if (entries.empty() && !code.empty() && (answers.empty() || !exercise_.empty())) {
      entries.push_back(&code.front());
      note = code.size() == 1 ? "" : "no file defines the exercise's function; graded the first "
                                     "code file in name order";
    }

    std::set<const Candidate*> used_answers;
    for (const Candidate* e : entries) {
      BatchInput in;
      in.file = e->graded;
      in.name = prefix + e->rel;
      in.student = student;
      in.exercise = exercise_;
      const Candidate* paired = nullptr;
      for (const auto& a : answers)
        if (!used_answers.count(&a) && (e->exercise.empty() || pairs_with(e->exercise, a.exercise)) &&
            (exercise_.empty() || a.exercise == exercise_)) {
          paired = &a;
          break;
        }
      if (paired) {
        used_answers.insert(paired);
        in.answers = paired->file;
        // An F3-looking file with F4 answers is an F4 attempt.
        if (in.exercise.empty() && !e->explicit_line) in.exercise = paired->exercise;
      }
      std::string helpers;
      std::vector<const Candidate*> others_of_entry;
      for (const auto& c : code) others_of_entry.push_back(&c);
      for (const auto& h : headers) others_of_entry.push_back(&h);
      for (const Candidate* cp : others_of_entry) {
        const Candidate& c = *cp;
        if (&c == e) continue;
        const fs::path rel = c.file.lexically_relative(e->file.parent_path());
        if (rel.empty() || *rel.begin() == "..") continue;  // above the entry: not importable
        in.helpers.push_back({c.file, rel});
        helpers += (helpers.empty() ? "" : ", ") + c.rel;
      }
      if (is_notebook(e->file))
        for (const auto& [src, rel] : in.helpers) copy_beside(src, e->graded.parent_path() / rel);
      in.choice = "entry " + e->rel +
                  (e->exercise.empty() ? std::string(" (the only code file)")
                                       : " (defines " + (in.exercise.empty() ? e->exercise : in.exercise) + ")");
      // A file defining several exercises' functions says which one it answers and why.
      if (e->how.find(", which uses ") != std::string::npos && in.exercise.empty())
        in.choice.insert(in.choice.size() - 1, ": " + e->how);
      if (is_notebook(e->file)) in.choice += ", its code cells";
      if (paired) in.choice += "; answers " + paired->rel;
      if (!helpers.empty()) in.choice += "; helpers: " + helpers;
      if (!note.empty()) in.choice += "; " + note;
      out_.inputs.push_back(std::move(in));
    }
    for (const auto& a : answers) {
      if (used_answers.count(&a) || (!exercise_.empty() && a.exercise != exercise_)) continue;
      if (!entries.empty() && !exercise_.empty()) continue;
      BatchInput in;
      in.file = a.file;
      in.name = prefix + a.rel;
      in.student = student;
      in.exercise = exercise_;
      in.choice = "answers " + a.rel + " alone (no code file of " + a.exercise + ")";
      out_.inputs.push_back(std::move(in));
    }
    for (const auto& o : others) out_.ignored.push_back((dir / o).string());
    return true;
  }

 /// A student who handed in nothing attnlab grades: a row of its own (batch.hpp).
  void nothing(const std::string& student, const std::string& why) {
    BatchInput in;
    in.name = student + "/";
    in.student = student;
    in.exercise = exercise_;
    in.no_submission = why;
    out_.inputs.push_back(std::move(in));
  }

 /// A loose file: a student of its own, named `name` (a notebook is converted).
  void loose(const fs::path& file, const std::string& name) {
    BatchInput in;
    in.file = file;
    in.name = name;
    in.student = name;
    in.exercise = exercise_;
    if (is_notebook(file)) {
      const fs::path py = convert(file, name);
      if (!py.empty()) {
        in.file = py;
        in.choice = "entry " + name + ", its code cells";
      }
    }
    out_.inputs.push_back(std::move(in));
  }

 /// An archive (.zip with unzip, .tar/.tar.gz with tar): unpacked into a
  /// folder of the run's temporary folder, then a student folder named
  /// `name`. False (and `why`) if it cannot be unpacked or holds nothing gradable.
  bool archive(const fs::path& file, const std::string& name, const std::optional<fs::path>& excluded,
               std::string* why) {
    try {
      if (!out_.converted) out_.converted = std::make_shared<TempDir>("attnlab-notebooks-");
      const fs::path dir = out_.converted->path() / ("archive-" + std::to_string(++converted_));
      fs::create_directories(dir);
      Command c;
      const bool zip = file.extension() == ".zip" || file.extension() == ".ZIP";
      // unzip and GNU tar refuse members with ".." or absolute paths by default.
      c.argv = zip ? std::vector<std::string>{"unzip", "-q", "-o", fs::absolute(file).string(), "-d", dir.string()}
                   : std::vector<std::string>{"tar", "-xf", fs::absolute(file).string(), "-C", dir.string()};
      c.limits.address_space_bytes = std::uint64_t{1} << 30;
      c.limits.file_size_bytes = std::uint64_t{64} << 20;
      const CommandResult r = run_command(c, std::chrono::seconds(60));
      if (!r.succeeded()) {
        *why = "its archive " + file.filename().string() + " cannot be unpacked: " +
               first_line(r.output);
        return false;
      }
      // An archive holding one folder: that folder is the student's.
      fs::path root = dir;
      std::vector<fs::path> top;
      for (const auto& e : fs::directory_iterator(dir))
        if (!hidden_name(e.path()) && e.path().filename() != "__MACOSX") top.push_back(e.path());
      if (top.size() == 1 && fs::is_directory(top.front())) root = top.front();
      return student(root, name, name + "/", excluded, why);
    } catch (const std::exception& e) {
      *why = "its archive " + file.filename().string() + " cannot be unpacked: " + e.what();
      return false;
    }
  }

 private:
  /// The Python of a notebook, in a folder of its own below the run's temporary folder.
  fs::path convert(const fs::path& notebook, const std::string& name) {
    try {
      if (!out_.converted) out_.converted = std::make_shared<TempDir>("attnlab-notebooks-");
      const fs::path dir = out_.converted->path() / std::to_string(++converted_);
      fs::create_directories(dir);
      const fs::path py = dir / (notebook.stem().string() + ".py");
      std::ofstream(py) << "# converted by attnlab from " << name << "\n"
                        << notebook_to_python(notebook);
      return py;
    } catch (const std::runtime_error&) {
      return {};  // not a notebook after all: graded as it is (and refused there)
    }
  }
  static void copy_beside(const fs::path& src, const fs::path& dest) {
    std::error_code ec;
    fs::create_directories(dest.parent_path(), ec);
    fs::copy_file(src, dest, fs::copy_options::overwrite_existing, ec);
  }

  std::string exercise_;
  ClassInputs& out_;
  int converted_ = 0;
};

}  // namespace

std::string student_id(const std::string& name) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  auto escape = [&](unsigned char b) {
    out += '%';
    out += hex[b >> 4];
    out += hex[b & 15];
  };
  const auto* p = reinterpret_cast<const unsigned char*>(name.data());
  const std::size_t n = name.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char b = p[i];
    if (b < 0x80) {
      if (b == '%' || b < 0x20 || b == 0x7f) escape(b); else out += char(b);
      ++i;
      continue;
    }
    // A well-formed UTF-8 sequence (RFC 3629: no overlong forms, no
    // surrogates, at most U+10FFFF) is kept; any other byte is escaped.
    std::size_t len = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    bool ok = len > 0 && i + len <= n;
    for (std::size_t k = 1; ok && k < len; ++k) ok = (p[i + k] & 0xc0) == 0x80;
    if (ok && len == 3) ok = !(b == 0xe0 && p[i + 1] < 0xa0) && !(b == 0xed && p[i + 1] >= 0xa0);
    if (ok && len == 4) ok = !(b == 0xf0 && p[i + 1] < 0x90) && !(b == 0xf4 && p[i + 1] >= 0x90);
    if (!ok) {
      escape(b);
      ++i;
      continue;
    }
    out.append(name, i, len);
    i += len;
  }
  return out;
}

bool in_shard(const std::string& name, int k, int n) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return n <= 1 || static_cast<int>(h % static_cast<std::uint64_t>(n)) == k - 1;
}

ClassInputs collect_class(const std::vector<fs::path>& paths, const std::optional<fs::path>& exclude,
                          const std::string& exercise) {
  ClassInputs out;
  Collector collect(exercise, out);
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
    for (const auto& e : entries) {
      if (hidden_name(e)) continue;
      if (fs::is_directory(e, ec)) {
        if (excluded && fs::weakly_canonical(e, ec) == *excluded) continue;
        const std::string name = unique(student_id(e.filename().string()));
        std::string why;
        if (!collect.student(e, name, name + "/", excluded, &why)) collect.nothing(name, why);
      } else if (const auto stem = archive_stem(e)) {
        const std::string name = unique(student_id(*stem));
        std::string why;
        if (!collect.archive(e, name, excluded, &why)) collect.nothing(name, why);
      } else if (is_answers_file(e) || is_code(e)) {
        collect.loose(e, unique(student_id(e.filename().string())));
      } else {
        out.ignored.push_back(e.string());
      }
    }
  }
  return out;
}

ClassInputs collect_upload(const fs::path& folder, const std::string& exercise, std::string* why) {
  ClassInputs out;
  std::error_code ec;
  if (!fs::is_directory(folder, ec))
    throw std::invalid_argument("no such folder: " + folder.string());
  Collector collect(exercise, out);
  collect.student(folder, "", "", std::nullopt, why);
  return out;
}

}  // namespace attn::grader

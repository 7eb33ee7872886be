// attnlab merge: checked joining of shards (see shard_merge.hpp).
#include "grading/shard_merge.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "exercises/exercise.hpp"
#include "exercises/registry.hpp"
#include "grading/out_folder.hpp"
#include "grading/row_signature.hpp"
#include "sandbox/atomic_file.hpp"
#include "sandbox/escaped_name.hpp"
#include "grading/student_names.hpp"
#include "grading/teacher_config.hpp"
#include "report/scoring.hpp"
#include "attn/prop/catalog.hpp"

namespace attn::grader {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

bool same(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b)); }

/// The item ids an exercise's rows may hold; throws MergeError for an unknown exercise.
const std::set<std::string>& items_of(const std::string& exercise, const std::string& where) {
  static std::map<std::string, std::set<std::string>> cache;
  if (auto it = cache.find(exercise); it != cache.end()) return it->second;
  const std::vector<std::string> known = graded_exercise_ids();
  if (std::find(known.begin(), known.end(), exercise) == known.end()) {
    std::string list;
    for (const auto& id : known) list += (list.empty() ? "" : ", ") + id;
    throw MergeError(where + ": unknown exercise \"" + escaped_name(exercise) + "\" (attnlab grades " + list + ")");
  }
  std::set<std::string> ids;
  const Exercise ex = load_exercise(exercise);
  for (const auto& p : ex.properties) ids.insert(p.id);
  for (const auto& [id, points] : ex.points) ids.insert(id);
  if (ex.has_answers()) ids.insert(kAnswersItem);
  return cache[exercise] = ids;
}

/// The text of a regular file inside `shard`, read through no symlink;
/// nullopt when it does not exist. Throws MergeError for a symlink, a
/// file that is not regular, or a hard link (st_nlink > 1: its other names
/// cannot be traced, so it may be a file outside the shard; link(2), stat(2)).
std::optional<std::string> read_inside(const fs::path& shard, const std::string& rel) {
  const fs::path folder = shard / kReportsFolder;
  struct stat st {};
  if (::lstat(folder.c_str(), &st) != 0) return std::nullopt;
  if (!S_ISDIR(st.st_mode))
    throw MergeError(shard.string() + ": " + folder.string() + " is not a folder (a symlink?)");
  const fs::path file = shard / rel;
  const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    throw MergeError(shard.string() + ": cannot read " + file.string() + ": " +
                     (errno == ELOOP ? std::string("it is a symlink") : std::strerror(errno)));
  }
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw MergeError(shard.string() + ": " + file.string() + " is not a regular file");
  }
  if (st.st_nlink > 1) {
    ::close(fd);
    throw MergeError(shard.string() + ": " + file.string() + " is a hard link (" +
                     std::to_string(st.st_nlink) +
                     " names; a file of a shard may not be one outside it): copy the shard "
                     "with cp -r, not cp -l");
  }
  std::string text;
  char buf[65536];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return text;
}

/// One row's own checks (shard_merge.hpp). Throws MergeError.
void check_row(const SummaryRow& r, const fs::path& shard) {
  const std::string where = shard.string() + ", row of " + escaped_name(r.file);
  if (!r.exercise.empty()) {
    const auto& items = items_of(r.exercise, where);
    for (const auto& [id, p] : r.points)
      if (!items.count(id))
        throw MergeError(where + ": " + r.exercise + " has no item \"" + id + "\"");
  } else if (!r.points.empty()) {
    throw MergeError(where + ": points without an exercise");
  }
  double earned = 0, possible = 0;
  for (const auto& [id, p] : r.points) {
    if (!std::isfinite(p.first) || !std::isfinite(p.second) || p.second < 0 || p.first < 0 ||
        p.first > p.second + 1e-9)
      throw MergeError(where + ": item " + id + " has " + format_points(p.first) + " of " +
                       format_points(p.second) + " points (outside [0, its maximum])");
    earned += p.first;
    possible += p.second;
  }
  const double score = r.status == "graded" ? earned : 0.0;
  if (!same(r.score, score))
    throw MergeError(where + ": its score " + format_points(r.score) +
                     " is not what its items earned (" + format_points(score) + ")");
  if (!std::isfinite(r.max_score) || r.max_score + 1e-9 < possible)
    throw MergeError(where + ": its maximum " + format_points(r.max_score) +
                     " is below its items' maxima (" + format_points(possible) + ")");
  const bool nothing = r.status == "no submission";
  if (r.report != report_path(r.file) && !(nothing && r.report == report_path(r.student)))
    throw MergeError(where + ": its report \"" + escaped_name(r.report) + "\" is not " + report_path(r.file) +
                     ", where attnlab writes it");
  if (r.status != "graded") return;
  const std::string results = r.report.substr(0, r.report.size() - 4) + ".results.json";
  const auto text = read_inside(shard, results);
  if (!text) throw MergeError(where + ": its " + results + " is missing");
  const nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object() || !j.contains("score") || !j["score"].is_number() ||
      !same(j["score"].get<double>(), r.score) || !same(j.value("max_score", -1.0), r.max_score))
    throw MergeError(where + ": its score " + format_points(r.score) + " / " +
                     format_points(r.max_score) + " is not the one of its " + results);
}

/// The first shard's settings, version and per-exercise items; every other
/// shard must match them (shard_merge.hpp).
struct Reference {
  fs::path shard;
  std::string hash, version;
  ojson settings;
  std::map<std::string, std::map<std::string, double>> item_max;  ///< exercise -> item -> max
  std::map<std::string, double> maximum;                           ///< exercise -> max_score
};

void check_consistent(const Gradebook& book, const fs::path& shard, Reference& ref) {
  if (!book.run.complete)
    throw MergeError(shard.string() + ": its run of " + book.run.started_at +
                     " did not complete; rerun the same attnlab grade command to finish it");
  for (const auto& r : book.submissions) {
    const std::string where = shard.string() + ", row of " + escaped_name(r.file);
    if (r.settings_hash.empty() || r.version.empty())
      throw MergeError(where + ": no settings hash or attnlab version (graded by an older attnlab? "
                       "grade it again)");
    if (ref.hash.empty()) {
      ref = Reference{shard, r.settings_hash, r.version, book.settings, {}, {}};
    } else if (r.settings_hash != ref.hash) {
      throw MergeError("cannot merge " + shard.string() + " with " + ref.shard.string() +
                       ": graded with other settings (" + settings_differences(ref.settings, book.settings) +
                       "; settings hash " + r.settings_hash + " vs " + ref.hash + ")");
    } else if (r.version != ref.version) {
      throw MergeError("cannot merge " + shard.string() + " with " + ref.shard.string() +
                       ": graded by attnlab " + r.version + " vs " + ref.version);
    }
    for (const auto& [id, p] : r.points) {
      auto [it, fresh] = ref.item_max[r.exercise].insert({id, p.second});
      if (!fresh && !same(it->second, p.second))
        throw MergeError(where + ": " + r.exercise + ":" + id + " is worth " +
                         format_points(p.second) + " here but " + format_points(it->second) +
                         " in an earlier row (another points table)");
    }
    if (r.exercise.empty() || r.max_score <= 0) continue;
    auto [it, fresh] = ref.maximum.insert({r.exercise, r.max_score});
    if (!fresh && !same(it->second, r.max_score))
      throw MergeError(where + ": " + r.exercise + " is out of " + format_points(r.max_score) +
                       " here but " + format_points(it->second) + " in an earlier row");
  }
}

/// The report files of `book`'s rows in `shard`, read (as checked) for
/// `out`: a row that records its reports' digests (row_signature.hpp) gets
/// exactly those files, each with its digest; an older row, those present.
void read_reports(const Gradebook& book, const fs::path& shard, const fs::path& out,
                  std::vector<std::pair<fs::path, std::string>>& files) {
  for (const auto& s : book.submissions) {
    const std::string where = shard.string() + ", row of " + escaped_name(s.file);
    if (s.report_sha256.empty()) {
      for (const auto& rel : report_files(s))
        if (auto text = read_inside(shard, rel)) files.push_back({out / rel, std::move(*text)});
      continue;
    }
    const std::vector<std::string> own = report_files(s);
    for (const auto& [rel, sha] : s.report_sha256) {
      if (std::find(own.begin(), own.end(), rel) == own.end())
        throw MergeError(where + ": \"" + rel + "\" is not one of its report files");
      auto text = read_inside(shard, rel);
      if (!text) throw MergeError(where + ": its " + rel + " is missing");
      if (sha256_hex(*text) != sha)
        throw MergeError(where + ": its " + rel + " is not the file graded (its SHA-256 differs "
                         "from the row's report_sha256: changed after grading)");
      files.push_back({out / rel, std::move(*text)});
    }
  }
}

/// The shard's settings must be those its rows were graded with (their
/// hash), so the columns made from them are the grader's.
void check_settings(const Gradebook& book, const fs::path& shard) {
  const std::string hash = settings_hash(book.settings);
  for (const auto& r : book.submissions)
    if (!r.settings_hash.empty() && r.settings_hash != hash)
      throw MergeError(shard.string() + ": its summary.json's settings (hash " + hash +
                       ") are not those its row of " + escaped_name(r.file) + " was graded with (" +
                       r.settings_hash + "): summary.json was edited, or mixes runs");
}

/// The gradebook's record (gradebook.hpp ShardRecord, row_signature.hpp):
/// every row of one of its ids, its student list that of its rows, and with
/// a key its signature holding; without a key, not signed.
void check_record(const Gradebook& book, const fs::path& shard, const std::string& key) {
  const ShardRecord& rec = book.shard;
  if (rec.id.empty()) {
    if (!key.empty())
      throw MergeError(shard.string() + ": its summary.json has no \"shard\" record (graded by an "
                       "older attnlab?): merge cannot tell a removed or replayed row; grade it again "
                       "with the key");
    return;
  }
  for (const auto& r : book.submissions)
    if (std::find(rec.ids.begin(), rec.ids.end(), r.shard_id) == rec.ids.end())
      throw MergeError(shard.string() + ", row of " + escaped_name(r.file) +
                       ": a row of another gradebook (" +
                       (r.shard_id.empty() ? std::string("none named") : "id " + escaped_name(r.shard_id)) +
                       "), not of this shard's run (" + escaped_name(rec.id) +
                       "): copied in from another run");
  const std::vector<std::string> rows = gradebook_students(book);
  for (const auto& who : rec.students)
    if (!std::binary_search(rows.begin(), rows.end(), who))
      throw MergeError(shard.string() + ": student " + escaped_name(who) +
                       " is in the shard's student list but has no row: a row was removed");
  for (const auto& who : rows)
    if (!std::binary_search(rec.students.begin(), rec.students.end(), who))
      throw MergeError(shard.string() + ": student " + escaped_name(who) +
                       " has a row but is not in the shard's student list: a row was added");
  if (key.empty()) {
    if (!rec.signature.empty())
      throw MergeError(shard.string() + ": its gradebook is signed, but no key was given to check "
                       "it: give the teacher configuration it was graded with (--config FILE, its "
                       "\"signing_key\")");
  } else if (rec.signature.empty()) {
    throw MergeError(shard.string() + ": its gradebook's record is not signed (graded without the "
                     "configuration's \"signing_key\"): grade it again with the key");
  } else if (!shard_signature_holds(book, key)) {
    throw MergeError(shard.string() + ": its gradebook's signed record does not hold under this "
                     "key: a row was removed, added or replaced (by another grading of the same "
                     "student) after grading, or it was graded with another signing_key");
  }
}

/// With a key, every row's signature must hold (row_signature.hpp); without
/// one, no row may be signed (its signature would go unchecked).
void check_signatures(const Gradebook& book, const fs::path& shard, const std::string& key) {
  for (const auto& r : book.submissions) {
    const std::string where = shard.string() + ", row of " + escaped_name(r.file);
    if (key.empty()) {
      if (!r.signature.empty())
        throw MergeError(where + ": it is signed, but no key was given to check it: give the "
                         "teacher configuration it was graded with (--config FILE, its "
                         "\"signing_key\")");
    } else if (r.signature.empty()) {
      throw MergeError(where + ": it is not signed (graded without the configuration's "
                       "\"signing_key\", or by an older attnlab): merge cannot tell it from a "
                       "forged row; grade it again with the key");
    } else if (!signature_holds(r, key)) {
      throw MergeError(where + ": its signature does not hold under this key: the row or its "
                       "reports were changed after grading, or it was graded with another "
                       "signing_key");
    }
  }
}

/// The class's columns of the merged rows, made as the grader makes them
/// (gradebook.hpp class_columns) from the settings every row was graded
/// with: a shard's "columns" are not taken.
void recompute_columns(Gradebook& merged, const fs::path& shard) {
  const auto& s = merged.settings;
  std::optional<TeacherConfig> config;
  if (s.contains("configuration") && s["configuration"].is_object()) {
    try {
      config = parse_teacher_config(s["configuration"].dump(), shard.string() + ": settings.configuration");
    } catch (const ConfigError& e) {
      throw MergeError(e.what());
    }
  }
  const auto text = [&](const char* key) {
    return s.contains(key) && s[key].is_string() ? s[key].get<std::string>() : std::string();
  };
  merged.columns = class_columns(text("exercise"), config ? &*config : nullptr,
                                 merged.submissions, text("property"));
  merged.students = student_rows(merged.submissions, merged.columns);
}

}  // namespace

namespace {

/// Removes the -o folder a refused merge made: its lock file and empty
/// students/ folder, then the folder if nothing else is in it.
void remove_made_out(const fs::path& out) {
  std::error_code ec;
  fs::remove(out / "students", ec);  // only if empty
  fs::remove(out / ".attnlab-lock", ec);
  fs::remove(out, ec);  // only if empty
}

/// The merge itself, under merge_shards' lock on options.out.
Gradebook merge_body(const MergeOptions& options) {
  // The output is written whole from the inputs: a gradebook already there
  // that is not one of them (a regrade into the merged folder) would be
  // replaced without a word, its newer rows lost.
  {
    std::error_code ec;
    const fs::path out = fs::weakly_canonical(options.out, ec);
    const bool is_input = std::any_of(options.shards.begin(), options.shards.end(), [&](const fs::path& shard) {
      std::error_code e;
      return fs::weakly_canonical(shard, e) == out;
    });
    if (!is_input && fs::exists(options.out / "summary.json", ec))
      throw MergeError(options.out.string() +
                       " already holds a gradebook that is not one of the inputs: merging would "
                       "replace its rows; give it as an input too (--allow-overlap, last one "
                       "given wins, to fold it in), or name another -o");
  }
  std::vector<Gradebook> books;
  Reference ref;
  std::map<std::string, fs::path> owner;  // student -> shard
  for (const auto& shard : options.shards) {
    std::error_code ec;
    if (!fs::exists(shard / "summary.json", ec))
      throw MergeError(shard.string() +
                       " has no summary.json (is it an --out folder of attnlab grade?)");
    books.push_back(read_gradebook(shard));
    check_signatures(books.back(), shard, options.key);
    check_record(books.back(), shard, options.key);
    for (const auto& r : books.back().submissions) check_row(r, shard);
    check_consistent(books.back(), shard, ref);
    check_settings(books.back(), shard);
    for (const auto& s : books.back().students) {
      auto [it, fresh] = owner.insert({s.student, shard});
      if (!fresh && !options.allow_overlap)
        throw MergeError("student " + escaped_name(s.student) + " is in " + it->second.string() + " and in " +
                         shard.string() + " (shards of one class do not overlap; "
                         "--allow-overlap takes the last one given)");
      it->second = shard;
    }
  }
  // Every report is read (and checked) before the first is written.
  std::vector<std::pair<fs::path, std::string>> files;
  Gradebook merged;
  for (std::size_t k = 0; k < books.size(); ++k) {
    std::error_code ec;
    if (fs::weakly_canonical(options.shards[k], ec) != fs::weakly_canonical(options.out, ec))
      read_reports(books[k], options.shards[k], options.out, files);
    merged = k == 0 ? books[k] : update_gradebook(merged, books[k]);
  }
  if (!books.empty()) recompute_columns(merged, options.shards.front());
  // The merged gradebook is one of its own, holding its shards' rows.
  merged.shard = ShardRecord{};
  merged.shard.id = new_gradebook_id();
  for (const auto& b : books)
    for (const auto& id : b.shard.ids)
      if (std::find(merged.shard.ids.begin(), merged.shard.ids.end(), id) == merged.shard.ids.end())
        merged.shard.ids.push_back(id);
  merged.shard.ids.push_back(merged.shard.id);
  sign_shard(merged, options.key);
  for (const auto& [file, text] : files) write_file_atomically(file, text);
  merged.run = RunState{};
  write_gradebook(options.out, merged);
  return merged;
}

}  // namespace

Gradebook merge_shards(const MergeOptions& options) {
  std::error_code ec;
  const bool existed = fs::exists(fs::symlink_status(options.out, ec));
  OutLock lock(options.out, "attnlab merge");
  try {
    return merge_body(options);
  } catch (...) {
    // A refused merge leaves no folder it made (removed while the lock is held).
    if (!existed) remove_made_out(options.out);
    throw;
  }
}

}  // namespace attn::grader

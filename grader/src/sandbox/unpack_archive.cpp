// Unpacking a student's archive with libarchive, under budgets (see unpack_archive.hpp).
#include "sandbox/unpack_archive.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <memory>
#include <system_error>

#include "sandbox/escaped_name.hpp"
#include "sandbox/file_problem.hpp"
#include "sandbox/no_follow.hpp"

namespace attn::grader {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct ReaderDeleter {
  void operator()(archive* a) const { archive_read_free(a); }
};
using Reader = std::unique_ptr<archive, ReaderDeleter>;

/// libarchive's message, which may quote a member's name: escaped (escaped_name.hpp).
std::string error_of(archive* a) {
  const char* s = archive_error_string(a);
  return s && *s ? escaped_name(s) : "unknown error";
}

/// The entry's path below the archive's root, or empty with `why` set when
/// it may not be written there (absolute, "..", no name); `shown`: its name
/// as a note shows it (escaped_name.hpp: a newline, ESC or CR in a member's
/// name never reaches a report or the console raw).
fs::path safe_path(archive_entry* e, std::string* shown, std::string* why) {
  const char* raw = archive_entry_pathname_utf8(e);
  if (!raw) raw = archive_entry_pathname(e);
  *shown = raw ? escaped_name(raw) : "";
  if (!raw || !*raw) {
    *why = "an entry without a name";
    return {};
  }
  const fs::path p = fs::path(raw).lexically_normal();
  if (fs::path(raw).is_absolute()) {
    *why = "an absolute path (not unpacked)";
    return {};
  }
  for (const auto& part : fs::path(raw))
    if (part == "..") {
      *why = "a path leading out of the archive with \"..\" (not unpacked)";
      return {};
    }
  if (p.empty() || p == ".") return fs::path(".");
  return p;
}

/// Why an entry of this type is not unpacked, or empty for a file or folder.
std::string refused_type(archive_entry* e) {
  if (archive_entry_hardlink(e)) return "a hard link (not unpacked)";
  const mode_t type = archive_entry_filetype(e);
  if (type == AE_IFREG || type == AE_IFDIR) return "";
  return file_type_words(type) + " (not unpacked)";
}

class Unpacker {
 public:
  Unpacker(const fs::path& dest, const UnpackLimits& limits)
      : dest_(dest), limits_(limits), start_(Clock::now()) {}

  /// Checks the time budget (every entry and every block of data).
  void check_time() const {
    if (Clock::now() - start_ > limits_.max_time)
      throw ArchiveRefused("takes more than " + std::to_string(limits_.max_time.count() / 1000) +
                           " s to unpack");
  }

  /// Writes the current entry's data to dest_/rel. False (and `why`) if the
  /// entry's data cannot be read on its own.
  bool write_file(archive* a, const fs::path& rel, mode_t perm, std::string* why) {
    const fs::path path = dest_ / rel;
    if (!make_folder(path.parent_path(), rel, why)) return false;
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                          (perm & 0100) ? 0755 : 0644);
    if (fd < 0 && (errno == EISDIR || errno == ENOTDIR || errno == ELOOP)) {
      *why = "its name is taken by a folder of the archive (not unpacked)";
      return false;
    }
    if (fd < 0 && errno == ENAMETOOLONG) {
      *why = too_long(rel);
      return false;
    }
    if (fd < 0) throw std::system_error(errno, std::generic_category(), "cannot write " + shortened(path.string()));
    std::unique_ptr<int, void (*)(int*)> closer(new int(fd), [](int* f) {
      ::close(*f);
      delete f;
    });
    char buf[1 << 16];
    for (;;) {
      check_time();
      const la_ssize_t n = archive_read_data(a, buf, sizeof buf);
      if (n == 0) break;
      if (n < 0) {
        if (n == ARCHIVE_WARN) continue;
        if (n == ARCHIVE_FATAL) throw ArchiveRefused("cannot be read: " + error_of(a));
        *why = error_of(a) + " (not unpacked)";
        std::error_code ec;
        fs::remove(path, ec);
        return false;
      }
      bytes_ += static_cast<std::uint64_t>(n);
      if (bytes_ > limits_.max_bytes)
        throw ArchiveRefused("unpacks to more than " + std::to_string(limits_.max_bytes >> 20) +
                             " MiB (the limit of one student's archive)");
      for (la_ssize_t done = 0; done < n;) {
        const ssize_t w = ::write(fd, buf + done, static_cast<std::size_t>(n - done));
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) throw std::system_error(errno, std::generic_category(), "cannot write " + shortened(path.string()));
        done += w;
      }
    }
    return true;
  }

  /// Counts one entry against the budget.
  void count() {
    if (++entries_ > limits_.max_entries)
      throw ArchiveRefused("holds more than " + std::to_string(limits_.max_entries) +
                           " files and folders (the limit of one student's archive)");
  }

  /// Makes `dir` and the folders above it below dest_ for the entry `rel`;
  /// false (and `why`) when a file of the archive has the name of one of
  /// them, or the path is too long for the system.
  static bool make_folder(const fs::path& dir, const fs::path& rel, std::string* why) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!ec) return true;
    if (ec == std::errc::not_a_directory || ec == std::errc::file_exists) {
      *why = "a file of the archive has the name of its folder (not unpacked)";
      return false;
    }
    if (ec == std::errc::filename_too_long) {
      *why = too_long(rel);
      return false;
    }
    throw std::system_error(ec, "cannot make the folder " + shortened(dir.string()));
  }

  /// Why an entry whose path the system cannot take is not unpacked (file_problem.hpp).
  static std::string too_long(const fs::path& rel) { return path_too_long_clause(rel, "unpack", "unpacked"); }

  /// One entry: counted, checked, written or skipped.
  void entry(archive* a, archive_entry* e, Unpacked& out) {
    count();
    std::string shown, why;
    const fs::path rel = safe_path(e, &shown, &why);
    if (why.empty()) why = refused_type(e);
    if (!why.empty()) {
      out.skipped.push_back(shortened(shown) + ": " + why);
      return;
    }
    if (archive_entry_filetype(e) == AE_IFDIR) {
      if (!make_folder(dest_ / rel, rel, &why)) out.skipped.push_back(shortened(shown) + ": " + why);
      return;
    }
    if (write_file(a, rel, archive_entry_perm(e), &why)) {
      ++out.files;
    } else {
      out.skipped.push_back(shortened(shown) + ": " + why);
    }
  }

 private:
  fs::path dest_;
  UnpackLimits limits_;
  Clock::time_point start_;
  std::uint64_t bytes_ = 0;
  std::size_t entries_ = 0;
};

}  // namespace

Unpacked unpack_archive(const fs::path& archive_path, const fs::path& dest, const UnpackLimits& limits) {
  Reader a(archive_read_new());
  if (!a) throw std::system_error(ENOMEM, std::generic_category(), "archive_read_new");
  archive_read_support_format_zip(a.get());
  archive_read_support_format_tar(a.get());
  archive_read_support_format_gnutar(a.get());
  archive_read_support_filter_gzip(a.get());
  archive_read_support_filter_bzip2(a.get());
  archive_read_support_filter_xz(a.get());
  if (archive_read_open_filename(a.get(), archive_path.c_str(), 1 << 16) != ARCHIVE_OK)
    throw ArchiveRefused("cannot be read: " + error_of(a.get()));
  Unpacker unpacker(dest, limits);
  Unpacked out;
  for (;;) {
    unpacker.check_time();
    archive_entry* e = nullptr;
    const int r = archive_read_next_header(a.get(), &e);
    if (r == ARCHIVE_EOF) break;
    if (r == ARCHIVE_FATAL) throw ArchiveRefused("cannot be read: " + error_of(a.get()));
    if (r == ARCHIVE_WARN) out.warnings.push_back(error_of(a.get()));
    if (r == ARCHIVE_FAILED || r == ARCHIVE_RETRY) {  // this entry only
      unpacker.count();
      out.warnings.push_back(error_of(a.get()));
      continue;
    }
    unpacker.entry(a.get(), e, out);
  }
  return out;
}

}  // namespace attn::grader

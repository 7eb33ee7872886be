#pragma once
// Unpacking a student's archive (.zip, .tar, .tar.gz, .tgz) with libarchive
// (archive_read(3), archive_read_data(3)), entry by entry, into a folder of
// the grader's: only regular files and folders are written; symbolic links,
// hard links, devices, FIFOs and sockets, absolute paths, paths with ".."
// and paths too long for the system (ENAMETOOLONG) are skipped and named
// (each name escaped, escaped_name.hpp, and shortened to a readable length:
// file_problem.hpp shortened);
// the whole archive is refused past any of the
// budgets below, counted on what it really unpacks to (not on the sizes
// its headers claim), so one student's archive bomb cannot fill the disk or
// hold the run.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace attn::grader {

/// Bytes an archive may unpack to (all its files together): 64 MiB.
inline constexpr std::uint64_t kArchiveMaxBytes = std::uint64_t{64} << 20;
/// Entries (files, folders, skipped entries) an archive may hold: 2,000.
inline constexpr std::size_t kArchiveMaxEntries = 2000;
/// Wall-clock time unpacking one archive may take: 20 s.
inline constexpr std::chrono::seconds kArchiveMaxTime{20};

/// The budgets of one archive (one student's).
struct UnpackLimits {
  std::uint64_t max_bytes = kArchiveMaxBytes;
  std::size_t max_entries = kArchiveMaxEntries;
  std::chrono::milliseconds max_time = kArchiveMaxTime;
};

/// An archive that cannot be unpacked, or is over a budget; what() is a
/// clause for the student's row: "unpacks to more than 64 MiB",
/// "holds more than 2000 entries", "cannot be read: Unrecognized archive format".
class ArchiveRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What unpacking left out and what it warned about, one clause each:
/// "link.py: a symbolic link (not unpacked)".
struct Unpacked {
  std::vector<std::string> skipped;
  std::vector<std::string> warnings;
  std::size_t files = 0;
};

/// Unpacks `archive` (zip or tar, the tar possibly gzip-, bzip2- or
/// xz-compressed; the format is read from the content) into the existing
/// empty folder `dest`: files 0644 (0755 if the owner could run it in the
/// archive), folders 0755. An entry that cannot be read on its own (an
/// encrypted zip member) is skipped; a warning of the reader leaves the
/// entry in. Throws ArchiveRefused when the archive is over a budget of
/// `limits` or unreadable, and std::system_error when `dest` cannot be
/// written (a full disk); `dest` may then hold part of it (the caller
/// removes it).
Unpacked unpack_archive(const std::filesystem::path& archive, const std::filesystem::path& dest,
                        const UnpackLimits& limits = {});

}  // namespace attn::grader

#pragma once
// The cache of built C++ submissions: an executable stored under a key that
// hashes (SHA-256, FIPS 180-4, OpenSSL's EVP) everything its build read, so
// a regrade of the same file skips the compiler.
//
// Entry: <cache>/cpp/<64 hex digits>, one file: the magic "attnlab1", the
// executable's length (8 bytes, little-endian), its SHA-256 (32 bytes), then
// its bytes. It is written under a temporary name and renamed into place
// (two graders building one file both succeed, one rename wins), checked
// whole before use (a truncated or corrupt entry is removed and rebuilt),
// and only the grader writes it: the sandboxed run never sees the folder.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace attn::grader {

/// The cache's folder: $ATTNLAB_CACHE_DIR, else $XDG_CACHE_HOME/attnlab,
/// else $HOME/.cache/attnlab; empty (no cache) when ATTNLAB_NO_CACHE is set
/// to anything but "" or "0", or none of the three is set.
std::filesystem::path default_build_cache_dir();

/// The cache keeps at most this many bytes of entries (the oldest used go first): 256 MiB.
inline constexpr std::uint64_t kBuildCacheMaxBytes = std::uint64_t{256} << 20;

/// A SHA-256 over length-prefixed parts (so "ab"+"c" and "a"+"bc" differ).
/// Throws std::runtime_error if OpenSSL fails.
class BuildKey {
 public:
  BuildKey();
  ~BuildKey();
  BuildKey(const BuildKey&) = delete;
  BuildKey& operator=(const BuildKey&) = delete;
  void add(std::string_view part);
  /// The file's bytes as one part; false (and nothing added) if it cannot be read.
  bool add_file_bytes(const std::filesystem::path& file);
  /// Every regular file below `dir` (sorted by relative path; not the
  /// folder's own name, which may be a temporary one): its relative
  /// path and, for a folder of at most 2 MiB (a student's), its bytes, else
  /// (a library installed on the machine, Eigen) its size and modification
  /// time. False if the folder cannot be walked.
  bool add_folder(const std::filesystem::path& dir);
  /// 64 lower-case hex digits; the key takes no more parts after.
  std::string hex();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Copies entry `key` of `cache_dir` to `dest` (mode 0755) if it is whole:
/// true on a hit. A truncated or corrupt entry is removed (false). Never throws.
bool fetch_cached_build(const std::filesystem::path& cache_dir, const std::string& key,
                        const std::filesystem::path& dest);

/// Stores the file `executable` as entry `key` (temporary name, then
/// rename), then removes the least recently used entries past `max_bytes`.
/// False if the folder is unusable (not a folder of this user's that only it
/// may write) or a write failed; the grading goes on without it. Never throws.
bool store_cached_build(const std::filesystem::path& cache_dir, const std::string& key,
                        const std::filesystem::path& executable,
                        std::uint64_t max_bytes = kBuildCacheMaxBytes);

}  // namespace attn::grader

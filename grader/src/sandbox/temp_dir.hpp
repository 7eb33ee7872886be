#pragma once
// TempDir: a private directory under $TMPDIR (or /tmp), removed with its
// contents when the object goes away. Its name says which process made it
// (<prefix>pid<pid>-XXXXXX), so that a later attnlab can remove the folders
// of a process that was killed before it could (remove_leftover_temp_dirs).

#include <filesystem>
#include <string>
#include <vector>

namespace attn::grader {

class TempDir {
 public:
  /// Creates <tmp>/<prefix>pid<pid>-XXXXXX with mode 0700 (mkdtemp(3)).
  /// Throws std::system_error if it cannot be created.
  explicit TempDir(const std::string& prefix = "attnlab-");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// Removes the folders TempDir made in $TMPDIR (or /tmp) for a process that
/// is gone: a directory (not a symlink) of this user named
/// "attnlab-<...>pid<pid>-XXXXXX" whose pid no longer exists (kill(pid, 0)
/// fails with ESRCH). A pid that was reused by another process keeps its
/// folder (left for a later run). Run as root, also such a folder of a uid
/// with no account (a sandbox uid's: a C++ compile killed with its grader),
/// removed as that uid (setpriv, rm -rf), never with root's rights. Returns
/// the folders removed; never throws.
std::vector<std::filesystem::path> remove_leftover_temp_dirs();

}  // namespace attn::grader

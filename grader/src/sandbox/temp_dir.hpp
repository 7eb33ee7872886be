#pragma once
// TempDir: a private directory under $TMPDIR (or /tmp), removed with its
// contents when the object goes away.

#include <filesystem>
#include <string>

namespace attn::grader {

class TempDir {
 public:
  /// Creates <tmp>/<prefix>XXXXXX with mode 0700.
  /// Throws std::system_error if it cannot be created.
  explicit TempDir(const std::string& prefix = "attnlab-");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace attn::grader

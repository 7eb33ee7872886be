// TempDir: mkdtemp, removed recursively on destruction.
#include "sandbox/temp_dir.hpp"

#include <errno.h>
#include <stdlib.h>

#include <cstdlib>
#include <system_error>
#include <vector>

namespace attn::grader {

TempDir::TempDir(const std::string& prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::filesystem::path base = tmp && *tmp ? tmp : "/tmp";
  std::string pattern = (base / (prefix + "XXXXXX")).string();
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) {
    throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
  }
  path_ = buf.data();
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace attn::grader

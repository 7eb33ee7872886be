// Whole-file writes: a temporary beside the file, fsync, rename (see atomic_file.hpp).
#include "sandbox/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace attn::grader {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void cannot_write(const fs::path& file, int e) {
  throw std::runtime_error("cannot write " + file.string() + ": " + std::strerror(e));
}

fs::path folder_of(const fs::path& file) {
  return file.has_parent_path() ? file.parent_path() : fs::path(".");
}

/// A temporary file beside `file`, written and fsync'd; throws with the
/// file's name (the temporary is removed then).
struct Staged {
  fs::path file, tmp;
};

Staged stage(const fs::path& file, const std::string& content) {
  const fs::path dir = folder_of(file);
  std::string pattern = (dir / ("." + file.filename().string() + ".XXXXXX")).string();
  if (file.filename().string().size() > 200)  // mkstemp's name must stay under NAME_MAX
    pattern = (dir / ".attnlab-tmp.XXXXXX").string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  const int fd = mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) cannot_write(file, errno);
  const fs::path tmp(name.data());
  auto fail = [&](int e) {
    ::close(fd);
    ::unlink(tmp.c_str());
    cannot_write(file, e);
  };
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(n < 0 ? errno : ENOSPC);
    done += static_cast<std::size_t>(n);
  }
  if (::fchmod(fd, 0644) != 0 || ::fsync(fd) != 0) fail(errno);
  if (::close(fd) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    cannot_write(file, e);
  }
  return {file, tmp};
}

void sync_folder(const fs::path& file) {
  const int fd = ::open(folder_of(file).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

}  // namespace

void write_file_atomically(const fs::path& file, const std::string& content) {
  write_files_atomically({{file, content}});
}

void write_files_atomically(const std::vector<std::pair<fs::path, std::string>>& files) {
  std::vector<Staged> staged;
  try {
    for (const auto& [file, content] : files) staged.push_back(stage(file, content));
  } catch (...) {
    for (const auto& s : staged) ::unlink(s.tmp.c_str());
    throw;
  }
  for (std::size_t k = 0; k < staged.size(); ++k)
    if (::rename(staged[k].tmp.c_str(), staged[k].file.c_str()) != 0) {
      const int e = errno;
      for (std::size_t j = k; j < staged.size(); ++j) ::unlink(staged[j].tmp.c_str());
      cannot_write(staged[k].file, e);
    }
  for (const auto& s : staged) sync_folder(s.file);
}

void write_file_creating_folder(const fs::path& file, const std::string& content) {
  struct stat st {};
  if (::lstat(file.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    // A link the user made (/dev/stdout -> /proc/self/fd/1, or to a file
    // kept elsewhere) or a stream: written through, never replaced.
    std::ofstream out(file, std::ios::binary);
    out << content;
    if (!out.flush()) throw std::runtime_error("cannot write " + file.string());
    return;
  }
  if (file.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    if (ec)
      throw std::runtime_error("cannot write " + file.string() + ": cannot create its folder " +
                               file.parent_path().string() + ": " + ec.message());
  }
  write_file_atomically(file, content);
}

}  // namespace attn::grader

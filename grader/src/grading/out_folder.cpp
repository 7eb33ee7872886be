// The --out folder: its lock and whole-file writes (see out_folder.hpp).
#include "grading/out_folder.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace attn::grader {
namespace {

namespace fs = std::filesystem;

std::string errno_words(int e) { return std::strerror(e); }

/// A temporary file beside `file`, written and fsync'd; throws with the
/// file's name (the temporary is removed then).
struct Staged {
  fs::path file, tmp;
};

Staged stage(const fs::path& file, const std::string& content) {
  const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
  std::string pattern = (dir / ("." + file.filename().string() + ".XXXXXX")).string();
  if (file.filename().string().size() > 200)  // mkstemp's name must stay under NAME_MAX
    pattern = (dir / ".attnlab-tmp.XXXXXX").string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  const int fd = mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot write " + file.string() + ": " + errno_words(errno));
  const fs::path tmp(name.data());
  auto fail = [&](int e) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw std::runtime_error("cannot write " + file.string() + ": " + errno_words(e));
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
    throw std::runtime_error("cannot write " + file.string() + ": " + errno_words(e));
  }
  return {file, tmp};
}

void sync_folder(const fs::path& file) {
  const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

/// Creates `dir`, then writes, fsyncs and removes a probe file in it.
void probe(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw OutFolderError("cannot create the output folder " + dir.string() + ": " + ec.message() +
                         " (give a writable --out)");
  try {
    const Staged s = stage(dir / ".attnlab-probe", "probe\n");
    ::unlink(s.tmp.c_str());
  } catch (const std::runtime_error& e) {
    throw OutFolderError("the output folder " + dir.string() + " cannot be written (" + e.what() +
                         "): give a writable --out with free space");
  }
}

}  // namespace

OutLock::OutLock(const fs::path& dir, const std::string& command) {
  probe(dir);
  probe(dir / kReportsFolder);
  const fs::path file = dir / kLockFile;
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd_ < 0)
    throw OutFolderError("cannot write to the output folder " + dir.string() + ": cannot open " +
                         file.string() + ": " + errno_words(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    std::string holder;
    std::ifstream in(file);
    std::getline(in, holder);
    ::close(fd_);
    fd_ = -1;
    if (e != EWOULDBLOCK)
      throw OutFolderError("cannot lock " + file.string() + ": " + errno_words(e));
    throw OutFolderError("another attnlab grade (or merge) is writing to " + dir.string() +
                         (holder.empty() ? "" : " (pid " + holder + ")") +
                         ": wait until it has finished before running " + command +
                         " again, or write elsewhere (its lock: " + file.string() + ")");
  }
  // Who holds it, for the message above; best effort (a full disk must not stop here).
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, pid.data(), pid.size(), 0);
}

OutLock::~OutLock() {
  if (fd_ >= 0) ::close(fd_);
}

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
      throw std::runtime_error("cannot write " + staged[k].file.string() + ": " + errno_words(e));
    }
  for (const auto& s : staged) sync_folder(s.file);
}

}  // namespace attn::grader

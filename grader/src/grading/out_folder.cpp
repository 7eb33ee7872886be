// The --out folder: its lock and the probe of its folders (see out_folder.hpp).
#include "grading/out_folder.hpp"

#include "sandbox/atomic_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace attn::grader {
namespace {

namespace fs = std::filesystem;

std::string errno_words(int e) { return std::strerror(e); }

/// Creates `dir`, then writes, fsyncs and removes a probe file in it.
void probe(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw OutFolderError("cannot create the output folder " + dir.string() + ": " + ec.message() +
                         " (give a writable --out)");
  try {
    write_file_atomically(dir / ".attnlab-probe", "probe\n");
    ::unlink((dir / ".attnlab-probe").c_str());
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

}  // namespace attn::grader

// Reading a student's file without following links (see no_follow.hpp).
#include "sandbox/no_follow.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <iterator>
#include <system_error>
#include <utility>

namespace attn::grader {
namespace {

namespace fs = std::filesystem;

/// Closes a descriptor when it goes out of scope.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  int release() {
    const int f = fd;
    fd = -1;
    return f;
  }
};

/// The error of a failed openat of `shown` with O_NOFOLLOW: ELOOP (the last
/// component is a link) and ENOTDIR (a folder step is not one) are refusals.
[[noreturn]] void throw_open_error(int err, const std::string& shown, bool folder_step) {
  if (err == ELOOP) throw RefusedFile(shown + " is a symbolic link (not followed)");
  if (err == ENOTDIR && folder_step)
    throw RefusedFile(shown + " is not a folder (a symbolic link or a file; not followed)");
  throw std::system_error(err, std::generic_category(), "cannot open " + shown);
}

}  // namespace

std::string file_type_words(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "a special file";
}

int open_no_follow(const fs::path& file, const fs::path& root) {
  Fd dir;
  fs::path below = file.filename();
  if (!root.empty()) {
    below = file.lexically_relative(root);
    if (below.empty() || *below.begin() == ".." || below.is_absolute())
      throw RefusedFile(file.string() + " is not inside " + root.string());
    dir.fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir.fd < 0) throw std::system_error(errno, std::generic_category(), "cannot open " + root.string());
  } else {
    const fs::path parent = file.has_parent_path() ? file.parent_path() : fs::path(".");
    dir.fd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir.fd < 0) throw std::system_error(errno, std::generic_category(), "cannot open " + parent.string());
  }
  fs::path shown = root;
  std::size_t left = static_cast<std::size_t>(std::distance(below.begin(), below.end()));
  for (const fs::path& part : below) {
    shown /= part;
    const bool last = --left == 0;
    if (!last && part == ".") continue;
    const int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (last ? O_NONBLOCK : O_DIRECTORY);
    Fd next;
    next.fd = ::openat(dir.fd, part.c_str(), flags);
    if (next.fd < 0) throw_open_error(errno, root.empty() ? file.string() : shown.string(), !last);
    std::swap(dir.fd, next.fd);  // `next` closes the folder above
  }
  struct stat st {};
  if (::fstat(dir.fd, &st) != 0)
    throw std::system_error(errno, std::generic_category(), "cannot read " + file.string());
  if (!S_ISREG(st.st_mode))
    throw RefusedFile(file.string() + " is " + file_type_words(st.st_mode) + ", not a regular file");
  // Back to blocking reads (a regular file never blocks; the flag only kept a FIFO's open from waiting).
  (void)::fcntl(dir.fd, F_SETFL, ::fcntl(dir.fd, F_GETFL) & ~O_NONBLOCK);
  return dir.release();
}

std::string read_no_follow(const fs::path& file, const fs::path& root, std::size_t max_bytes) {
  Fd in;
  in.fd = open_no_follow(file, root);
  std::string text;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(in.fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::system_error(errno, std::generic_category(), "cannot read " + file.string());
    if (n == 0) return text;
    if (text.size() + static_cast<std::size_t>(n) > max_bytes)
      throw RefusedFile(file.string() + " is larger than " + std::to_string(max_bytes) + " bytes");
    text.append(buf, static_cast<std::size_t>(n));
  }
}

mode_t copy_no_follow(const fs::path& file, const fs::path& dest, mode_t mode, const fs::path& root) {
  Fd in;
  in.fd = open_no_follow(file, root);
  struct stat st {};
  (void)::fstat(in.fd, &st);
  Fd out;
  out.fd = ::open(dest.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
  if (out.fd < 0) throw std::system_error(errno, std::generic_category(), "cannot write " + dest.string());
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(in.fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::system_error(errno, std::generic_category(), "cannot read " + file.string());
    if (n == 0) break;
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = ::write(out.fd, buf + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) throw std::system_error(errno, std::generic_category(), "cannot write " + dest.string());
      done += w;
    }
  }
  if (::fchmod(out.fd, mode) != 0)
    throw std::system_error(errno, std::generic_category(), "cannot set the mode of " + dest.string());
  return st.st_mode;
}

}  // namespace attn::grader

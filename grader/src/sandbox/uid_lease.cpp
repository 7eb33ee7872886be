// Leases of unprivileged uids by flock(2) (uid_lease.hpp).
#include "sandbox/uid_lease.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace attn::grader {

struct UidLease::Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

std::filesystem::path UidLease::default_lock_dir() { return "/run/lock/attnlab-uids"; }

std::optional<UidLease> UidLease::take(std::uint32_t base, std::uint32_t preferred,
                                       const std::filesystem::path& lock_dir) {
  if (::mkdir(lock_dir.c_str(), 0755) != 0 && errno != EEXIST) return std::nullopt;
  struct stat st {};
  if (::lstat(lock_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return std::nullopt;
  for (std::uint32_t i = 0; i < kRange; ++i) {
    const std::uint32_t uid = base + (preferred + i) % kRange;
    const std::string file = (lock_dir / ("uid-" + std::to_string(uid))).string();
    // O_CLOEXEC: the lock is never handed to a submission's processes.
    const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) return std::nullopt;
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      UidLease lease;
      lease.uid_ = static_cast<uid_t>(uid);
      lease.fd_ = std::make_shared<Fd>(fd);
      return lease;
    }
    ::close(fd);
  }
  return std::nullopt;
}

}  // namespace attn::grader

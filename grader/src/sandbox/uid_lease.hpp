#pragma once
// A uid of its own for each running grade on the machine, when attnlab runs
// as root and drops a submission to an unprivileged uid (sandbox.hpp).
//
// RLIMIT_NPROC counts every process of a uid (setrlimit(2)): two grades
// running as one uid share one allowance, so a fork bomb in one makes the
// other's fork fail (EAGAIN). Job slots of one batch never share a uid, but
// two attnlab processes (two teachers' batches, a test suite's parallel
// tests) would, slot for slot. A lease is an exclusive flock(2) on a file
// named after the uid, held for as long as the lease (and any process forked
// while it is held) lives, so no two running grades hold the same uid.

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>

namespace attn::grader {

class UidLease {
 public:
  /// How many uids from the base a lease may take (base .. base + 1023).
  static constexpr std::uint32_t kRange = 1024;

  /// Leases the first free uid of base + (preferred + i) mod kRange,
  /// i = 0, 1, ...: `preferred` (the job slot) first, so a grade alone on
  /// the machine runs as base + slot as before. The locks live in
  /// `lock_dir` (made 0755 if missing; files uid-N, never removed). Empty
  /// when the folder cannot be used or every uid of the range is held. Does
  /// not throw.
  static std::optional<UidLease> take(std::uint32_t base, std::uint32_t preferred,
                                      const std::filesystem::path& lock_dir = default_lock_dir());

  /// /run/lock/attnlab-uids (the FHS's folder for lock files), shared by
  /// every attnlab on the machine.
  static std::filesystem::path default_lock_dir();

  uid_t uid() const { return uid_; }

 private:
  struct Fd;
  uid_t uid_ = 0;
  std::shared_ptr<Fd> fd_;  ///< the locked file, closed (unlocked) by its last copy
};

}  // namespace attn::grader

#pragma once
// The bounds of every number a teacher or a user gives the grader: one table
// read by the command line (`attnlab grade` and `attnlab check`, CLI11
// validators in commands/cli_checks.hpp) and by the teacher configuration
// (teacher_config.cpp), so `--cases` and `"cases"` refuse the same values
// with the same range in the message.
//
// The ranges keep every later conversion exact: cases fit an int; MiB
// shifted left by 20 fit 64 bits (16 TiB at most); seconds times 1000 fit
// the milliseconds of std::chrono (a day at most); points stay far from
// double's overflow when summed.

#include <cstdint>
#include <limits>

namespace attn::grader::bounds {

/// A whole number from `min` to `max` (both included).
struct Whole {
  std::uint64_t min;
  std::uint64_t max;
  const char* zero_means = nullptr;  ///< non-null: 0 is allowed too, and means this ("no limit")
  const char* below_min = nullptr;   ///< non-null: why a value below `min` is refused (said with it)
};

/// A finite number from `min` to `max`; `zero_means` non-null: 0 is allowed
/// and means that ("no limit"), otherwise the number must be > min.
struct Real {
  double min;
  double max;
  const char* zero_means;
  const char* unit;  ///< "seconds", "points"
};

inline constexpr std::uint64_t kMaxCases = 100000000;  // as default_case_count's cap
inline constexpr std::uint64_t kMaxMib = std::uint64_t{1} << 24;  // 16 TiB: MiB << 20 cannot overflow
inline constexpr double kMaxSeconds = 86400;                     // a day

inline constexpr Whole kSeed{0, std::numeric_limits<std::uint64_t>::max()};
inline constexpr Whole kCases{1, kMaxCases};  ///< --cases, "cases", "student_cases"
/// The least address space (MiB, RLIMIT_AS, and the memory cgroup of a
/// submission's processes) with which the model solutions are graded in
/// full: less, and every student is blamed for running out of memory.
/// Measured (docs/MANUAL.md, "Limits and sandbox"; 20 cases, bubblewrap,
/// one cgroup v1 for all the submission's processes): Debian 12's
/// /usr/bin/python3 3.11 with NumPy 1.24 and attnlab's harness grade
/// solutions/F3/attention.py in full from 56 MiB (52: 7 of 12 points), the
/// C++ model solution from 320 MiB (g++ 12's cc1plus compiling against
/// Eigen under the same cgroup is killed at 288); 512 leaves room above both.
inline constexpr std::uint64_t kMinMemoryMib = 512;
inline constexpr const char* kMinMemoryWhy =
    "below it not even the model solution can be graded (Python with NumPy, or g++ with Eigen)";
/// --memory of `attnlab grade`, "limits.memory_mib"
inline constexpr Whole kMemoryMib{kMinMemoryMib, kMaxMib, nullptr, kMinMemoryWhy};
/// --memory of `attnlab check` (0: no limit, for PyTorch and JAX)
inline constexpr Whole kCheckMemoryMib{kMinMemoryMib, kMaxMib, "no limit", kMinMemoryWhy};
inline constexpr Whole kFileSizeMib{1, kMaxMib};  ///< --file-size, "limits.file_size_mib"
inline constexpr Whole kMaxProcesses{0, 1000000};  ///< --max-processes (0: no limit)
/// --timeout, --compile-timeout, "limits.timeout_s", "limits.compile_timeout_s"
inline constexpr Real kTimeoutSeconds{0, kMaxSeconds, nullptr, "seconds"};
/// --submission-timeout, "limits.submission_timeout_s" (0: no limit)
inline constexpr Real kBudgetSeconds{0, kMaxSeconds * 7, "no limit", "seconds"};
/// An item's points ("exercises.F3.points.oracle_agreement")
inline constexpr Real kPoints{0, 1000000, "no points", "points"};

/// The fewest characters of an anonymisation salt (the configuration's
/// "anonymise_salt", `grade --anonymise-salt`): a secret of the teacher's
/// own, which a short one is not (anyone with the student list could try
/// every short salt against summary-anonymous.csv).
inline constexpr std::size_t kMinSaltChars = 8;

/// The default --memory of `attnlab grade` and `attnlab check`.
inline constexpr std::uint64_t kDefaultMemoryMib = 4096;

}  // namespace attn::grader::bounds

#pragma once
// The compiler cache of C++ builds: ccache (Debian's package), run by the
// grader as the compiler's wrapper inside the build's sandbox, so each lookup
// sees exactly the files the compiler would see (direct mode's manifest
// re-checks every include by path and content in that view).

#include <filesystem>
#include <string>

namespace attn::grader {

struct CompilerCache {
  /// The ccache program (absolute); empty: the cache is off (`why_off` says why).
  std::string ccache;
  /// ccache's cache_dir: ATTNLAB_CACHE_DIR, else $XDG_CACHE_HOME/attnlab/ccache,
  /// else ~/.cache/attnlab/ccache.
  std::filesystem::path dir;
  /// ccache's max_size for that folder (its own cleanup keeps it there).
  std::string max_size = "2G";
  /// "switched off by --no-cache", "ccache is not installed", ...
  std::string why_off;

  bool on() const { return !ccache.empty(); }
};

/// The cache from the environment: off with `switched_off` (--no-cache) or
/// ATTNLAB_NO_CACHE=1 (not 0, false, no); the program ATTNLAB_CCACHE, else
/// `ccache` on PATH, else off; the folder as CompilerCache::dir, made 0700
/// if missing (off if it cannot be made or written to, or lies inside the
/// checkout, which the sandbox never shows). Does not throw.
CompilerCache compiler_cache_from_environment(bool switched_off);

}  // namespace attn::grader

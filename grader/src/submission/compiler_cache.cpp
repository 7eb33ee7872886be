// Where the compiler cache lives and whether it is on.
#include "submission/compiler_cache.hpp"

#include <cstdlib>

#include <unistd.h>

#include "attn/grader/paths.hpp"
#include "sandbox/python_finder.hpp"

namespace attn::grader {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

CompilerCache off(CompilerCache cache, std::string why) {
  cache.ccache.clear();
  cache.why_off = std::move(why);
  return cache;
}

}  // namespace

CompilerCache compiler_cache_from_environment(bool switched_off) {
  namespace fs = std::filesystem;
  CompilerCache cache;
  if (switched_off) return off(cache, "switched off by --no-cache");
  if (const std::string v = env("ATTNLAB_NO_CACHE"); !v.empty() && v != "0" && v != "false" && v != "no")
    return off(cache, "switched off by ATTNLAB_NO_CACHE");
  const std::string program = env("ATTNLAB_CCACHE").empty() ? "ccache" : env("ATTNLAB_CCACHE");
  const auto found = which(program);
  if (!found) return off(cache, program + " is not installed (Debian: apt-get install ccache)");
  cache.ccache = *found;
  if (const std::string d = env("ATTNLAB_CACHE_DIR"); !d.empty()) {
    cache.dir = d;
  } else if (const std::string x = env("XDG_CACHE_HOME"); !x.empty() && x[0] == '/') {
    cache.dir = fs::path(x) / "attnlab" / "ccache";
  } else if (const std::string h = env("HOME"); !h.empty()) {
    cache.dir = fs::path(h) / ".cache" / "attnlab" / "ccache";
  } else {
    return off(cache, "no folder for it (neither ATTNLAB_CACHE_DIR, XDG_CACHE_HOME nor HOME is set)");
  }
  std::error_code ec;
  cache.dir = fs::absolute(cache.dir, ec).lexically_normal();
  const fs::path checkout = fs::path(paths::source_dir).lexically_normal();
  const fs::path below = cache.dir.lexically_relative(checkout);
  if (!below.empty() && *below.begin() != "..")
    return off(cache, "its folder " + cache.dir.string() + " is inside the checkout, which the sandbox never shows");
  if (!fs::is_directory(cache.dir, ec)) {
    fs::create_directories(cache.dir, ec);
    if (!ec) fs::permissions(cache.dir, fs::perms(0700), fs::perm_options::replace, ec);
    if (ec) return off(cache, "cannot make its folder " + cache.dir.string() + ": " + ec.message());
  }
  if (::access(cache.dir.c_str(), W_OK | X_OK) != 0)
    return off(cache, "cannot write to its folder " + cache.dir.string());
  return cache;
}

}  // namespace attn::grader

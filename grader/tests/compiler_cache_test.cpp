// The compiler cache of C++ builds (submission/compiler_cache.hpp, ccache):
// the same bytes hit in a new build folder, a changed source or header byte
// misses, and a cache that is off or missing builds as before.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>

#include "attn/grader/paths.hpp"
#include "sandbox/python_finder.hpp"
#include "sandbox/temp_dir.hpp"
#include "submission/cpp_build.hpp"
#include "submission_fixtures.hpp"

using namespace attn::grader;
using namespace fixtures;
namespace fs = std::filesystem;

namespace {

void append(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::app) << text;
}

/// Sets an environment variable for the scope, restoring it after.
struct ScopedEnv {
  std::string name;
  std::optional<std::string> old;
  ScopedEnv(std::string n, const char* value) : name(std::move(n)) {
    if (const char* v = std::getenv(name.c_str())) old = v;
    if (value) setenv(name.c_str(), value, 1); else unsetenv(name.c_str());
  }
  ~ScopedEnv() {
    if (old) setenv(name.c_str(), old->c_str(), 1); else unsetenv(name.c_str());
  }
};

}  // namespace

TEST_CASE("cpp build through the compiler cache: a hit for the same bytes, a miss for a changed byte",
          "[cpp][cache]") {
  const auto ccache = which("ccache");
  if (!ccache) {
    WARN("ccache is not installed: nothing to test");
    return;
  }
  TempDir cache_dir, src, headers;
  // The submission and the exercise's header, copies this test can change.
  const fs::path source = src.path() / "attention.cpp";
  fs::copy_file(data("echo_or_segfault.cpp"), source);
  CppToolchain t = toolchain_for("F3");
  REQUIRE(t.interface_headers.size() == 1);
  const fs::path header = headers.path() / "F3" / fs::path(t.interface_headers.front()).filename();
  fs::create_directories(header.parent_path());
  fs::copy_file(t.interface_headers.front(), header);
  t.interface_headers = {header.string()};
  t.interface_dir = header.parent_path().string();
  t.cache.ccache = *ccache;
  t.cache.dir = cache_dir.path();

  // Each build in a new folder, as each grade is.
  auto build = [&] {
    TempDir work("attnlab-build-");
    const CppBuild b = build_cpp_submission(source, work.path(), t);
    INFO(b.diagnostics);
    CHECK(b.status == CppBuild::Status::built);
    CHECK(fs::is_regular_file(work.path() / "submission"));
    return b.cache;
  };
  CHECK(build() == "miss");
  CHECK(build() == "hit");
  // A changed byte of code (a changed comment alone preprocesses the same:
  // ccache's preprocessed-mode hit, rightly).
  append(source, "\nint one_more_byte_in_the_source = 1;\n");
  CHECK(build() == "miss");
  CHECK(build() == "hit");
  append(header, "\ninline int one_more_byte_in_the_header = 2;\n");
  CHECK(build() == "miss");
  CHECK(build() == "hit");
}

TEST_CASE("cpp build with the compiler cache off or missing compiles as before", "[cpp][cache]") {
  TempDir cache_dir;
  const ScopedEnv dir("ATTNLAB_CACHE_DIR", cache_dir.path().c_str());
  {
    const ScopedEnv program("ATTNLAB_CCACHE", nullptr);
    const ScopedEnv no("ATTNLAB_NO_CACHE", nullptr);
    CHECK_THAT(compiler_cache_from_environment(true).why_off, Catch::Contains("--no-cache"));
    if (which("ccache")) CHECK(compiler_cache_from_environment(false).on());
  }
  {
    const ScopedEnv no("ATTNLAB_NO_CACHE", "1");
    CHECK_FALSE(compiler_cache_from_environment(false).on());
  }
  {
    // Inside the checkout, which the sandbox never shows: off.
    const ScopedEnv inside("ATTNLAB_CACHE_DIR", (fs::path(paths::source_dir) / "build" / "x").c_str());
    CHECK_THAT(compiler_cache_from_environment(false).why_off, Catch::Contains("inside the checkout"));
  }
  const ScopedEnv missing("ATTNLAB_CCACHE", "/nonexistent/ccache");
  const CompilerCache off = compiler_cache_from_environment(false);
  CHECK_FALSE(off.on());
  CHECK_THAT(off.why_off, Catch::Contains("not installed"));
  CppToolchain t = toolchain_for("F3");
  t.cache = off;
  TempDir work("attnlab-build-");
  const CppBuild b = build_cpp_submission(data("echo_or_segfault.cpp"), work.path(), t);
  INFO(b.diagnostics);
  CHECK(b.status == CppBuild::Status::built);
  CHECK_THAT(b.cache, Catch::StartsWith("off: "));
  CHECK(fs::is_empty(cache_dir.path()));
}

TEST_CASE("cpp build: a compile that ccache itself fails runs again without it, and a compile error reads as the compiler's",
          "[cpp][cache]") {
  // A stand-in for ccache that fails as ccache does on a folder it cannot
  // write (its own message, exit 1), whatever it is asked to compile.
  TempDir bin, cache_dir;
  const fs::path fake = bin.path() / "ccache";
  std::ofstream(fake) << "#!/bin/sh\necho 'ccache: error: Failed to create directory /x/4/5: Permission denied' >&2\n"
                         "exit 1\n";
  fs::permissions(fake, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                            fs::perms::others_read | fs::perms::others_exec);
  CppToolchain t = toolchain_for("F3");
  t.cache.ccache = fake.string();
  t.cache.dir = cache_dir.path();
  {
    TempDir work("attnlab-build-");
    const CppBuild b = build_cpp_submission(data("echo_or_segfault.cpp"), work.path(), t);
    INFO(b.diagnostics);
    CHECK(b.status == CppBuild::Status::built);
    CHECK_THAT(b.cache, Catch::StartsWith("failed, compiled without it (ccache: error: Failed to create"));
  }
  // A submission that does not compile is not gradable with the compiler's
  // message, not ccache's (the stand-in runs the compiler when it is real).
  TempDir src;
  const fs::path broken = src.path() / "attention.cpp";
  std::ofstream(broken) << "this is not C++\n";
  TempDir work("attnlab-build-");
  const CppBuild b = build_cpp_submission(broken, work.path(), t);
  CHECK(b.status == CppBuild::Status::not_gradable);
  CHECK_THAT(b.diagnostics, !Catch::Contains("ccache"));
  CHECK_THAT(b.diagnostics, Catch::Contains("this is not"));
}

TEST_CASE("compiler cache: off when its folder cannot be written", "[cpp][cache]") {
  // /proc is never writable, for root either (EACCES or EROFS by access(2)).
  const ScopedEnv dir("ATTNLAB_CACHE_DIR", "/proc/self");
  const ScopedEnv no("ATTNLAB_NO_CACHE", nullptr);
  const ScopedEnv program("ATTNLAB_CCACHE", nullptr);
  if (!which("ccache")) {
    WARN("ccache is not installed: nothing to test");
    return;
  }
  const CompilerCache c = compiler_cache_from_environment(false);
  CHECK_FALSE(c.on());
  CHECK_THAT(c.why_off, Catch::Contains("cannot write to its folder /proc/self"));
}

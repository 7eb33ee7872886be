// The cache of built C++ submissions (submission/build_cache.hpp): a second
// build of the same bytes is a hit; a changed source byte, a changed
// interface header miss; a damaged entry is rebuilt, never run; two builds
// of one file at once both succeed.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "attn/grader/paths.hpp"
#include "sandbox/temp_dir.hpp"
#include "submission/build_cache.hpp"
#include "submission/cpp_build.hpp"

using namespace attn::grader;
namespace fs = std::filesystem;

namespace {

std::string bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
}

/// A scratch folder with F3's model solution and a copy of F3's header
/// (in F3/, as the build stages it), the toolchain pointed at both and at
/// the cache folder inside.
struct Scratch {
  TempDir dir{"attnlab-build-cache-test-"};
  fs::path source = dir.path() / "src" / "attention.cpp";
  fs::path header = dir.path() / "F3" / "attention.hpp";
  fs::path cache = dir.path() / "cache";
  CppToolchain toolchain = toolchain_for("F3");
  int builds = 0;

  Scratch() {
    fs::create_directories(source.parent_path());
    fs::create_directories(header.parent_path());
    fs::copy_file(fs::path(attn::grader::paths::source_dir) / "solutions/F3/attention.cpp", source);
    fs::copy_file(fs::path(toolchain.interface_dir) / "attention.hpp", header);
    toolchain.interface_dir = header.parent_path().string();
    toolchain.interface_headers = {header.string()};
    toolchain.cache_dir = cache;
  }

  /// One build of `source` in a fresh folder of its own.
  CppBuild build() {
    const fs::path workdir = dir.path() / ("work" + std::to_string(builds++));
    fs::create_directories(workdir);
    return build_cpp_submission(source, workdir, toolchain);
  }

  fs::path only_entry() const {
    fs::path found;
    for (const auto& e : fs::directory_iterator(cache / "cpp")) found = e.path();
    return found;
  }
};

}  // namespace

TEST_CASE("the build cache: a hit for the same bytes, a miss for a changed byte, a damaged entry rebuilt",
          "[cpp][cache]") {
  // One test, its steps in order, so each compile is paid once.
  Scratch s;
  const CppBuild first = s.build();
  INFO(first.diagnostics);
  REQUIRE(first.status == CppBuild::Status::built);
  CHECK_FALSE(first.cached);
  const fs::path entry = s.only_entry();
  const CppBuild second = s.build();
  REQUIRE(second.status == CppBuild::Status::built);
  CHECK(second.cached);
  CHECK(bytes_of(second.executable) == bytes_of(first.executable));
  CHECK((fs::status(second.executable).permissions() & fs::perms::owner_exec) != fs::perms::none);

  const std::string source = bytes_of(s.source), header = bytes_of(s.header);
  write(s.source, source + "\n// one more line\n");
  CHECK_FALSE(s.build().cached);  // a changed source byte misses
  write(s.source, source);
  write(s.header, header + "\n// one more line\n");
  CHECK_FALSE(s.build().cached);  // a changed interface header misses
  write(s.header, header);
  CHECK(s.build().cached);  // the original bytes: the first entry again

  fs::resize_file(entry, fs::file_size(entry) - 1);  // truncated: removed and rebuilt
  const CppBuild rebuilt = s.build();
  REQUIRE(rebuilt.status == CppBuild::Status::built);
  CHECK_FALSE(rebuilt.cached);
  CHECK(s.build().cached);  // stored whole again

  std::string bytes = bytes_of(entry);  // one byte of the executable changed: rebuilt
  bytes[bytes.size() / 2] ^= 1;
  write(entry, bytes);
  CHECK_FALSE(s.build().cached);
  CHECK(s.build().cached);

  fs::permissions(s.cache / "cpp", fs::perms(0777), fs::perm_options::replace);
  CHECK_FALSE(s.build().cached);  // a folder others may write is not used
}

TEST_CASE("two builds of one file at once both succeed and leave one whole entry", "[cpp][cache]") {
  Scratch s;
  CppBuild a, b;
  const fs::path wa = s.dir.path() / "a", wb = s.dir.path() / "b";
  fs::create_directories(wa);
  fs::create_directories(wb);
  std::thread other([&] { b = build_cpp_submission(s.source, wb, s.toolchain); });
  a = build_cpp_submission(s.source, wa, s.toolchain);
  other.join();
  REQUIRE(a.status == CppBuild::Status::built);
  REQUIRE(b.status == CppBuild::Status::built);
  CHECK(bytes_of(a.executable) == bytes_of(b.executable));
  int entries = 0;
  for (const auto& e : fs::directory_iterator(s.cache / "cpp")) {
    ++entries;
    CHECK(e.path().filename().string().rfind(".tmp-", 0) != 0);  // no temporary left
  }
  CHECK(entries == 1);
  CHECK(s.build().cached);
}

TEST_CASE("the cache folder comes from the environment", "[cache]") {
  const char* home = std::getenv("HOME");
  const std::string saved_home = home ? home : "";
  ::setenv("ATTNLAB_CACHE_DIR", "/some/where", 1);
  ::unsetenv("ATTNLAB_NO_CACHE");
  CHECK(default_build_cache_dir() == fs::path("/some/where"));
  ::setenv("ATTNLAB_NO_CACHE", "1", 1);
  CHECK(default_build_cache_dir().empty());
  ::setenv("ATTNLAB_NO_CACHE", "0", 1);
  ::unsetenv("ATTNLAB_CACHE_DIR");
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  CHECK(default_build_cache_dir() == fs::path("/xdg/attnlab"));
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("HOME", "/home/someone", 1);
  CHECK(default_build_cache_dir() == fs::path("/home/someone/.cache/attnlab"));
  ::unsetenv("ATTNLAB_NO_CACHE");
  ::setenv("HOME", saved_home.c_str(), 1);
}

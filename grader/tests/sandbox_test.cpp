// The sandbox: what it binds for a command, what it never shows, its
// fallback, the process limit, the private copy of a submission.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>

#include <catch2/catch.hpp>

#include "sandbox/memory_cgroup.hpp"
#include "sandbox/no_follow.hpp"
#include "sandbox/run_command.hpp"
#include "sandbox/sandbox.hpp"
#include "sandbox/tail_buffer.hpp"
#include "sandbox/temp_dir.hpp"

namespace {

using attn::grader::Command;
using attn::grader::Sandbox;
using attn::grader::SandboxOptions;
using attn::grader::ProcessLimit;
using attn::grader::UidLease;
namespace fs = std::filesystem;

/// The destination of every --bind/--ro-bind in a bwrap prefix.
std::vector<std::string> binds(const std::vector<std::string>& prefix) {
  std::vector<std::string> out;
  for (std::size_t k = 0; k + 2 < prefix.size(); ++k)
    if (prefix[k] == "--bind" || prefix[k] == "--ro-bind") out.push_back(prefix[k + 2]);
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

/// The environment variable set for one scope.
struct ScopedEnv {
  std::string name;
  ScopedEnv(const char* n, const char* value) : name(n) { setenv(n, value, 1); }
  ~ScopedEnv() { unsetenv(name.c_str()); }
};

}  // namespace

TEST_CASE("stderr tail: cut at a line boundary, never mid-line", "[sandbox]") {
  attn::grader::TailBuffer t(16);
  t.append("first line\nsecond\nthird\n");  // 24 bytes: the first 8 are dropped
  REQUIRE(t.truncated());
  CHECK(t.text() == "ne\nsecond\nthird\n");
  CHECK(t.whole_lines() == "second\nthird\n");
  attn::grader::TailBuffer whole(64);  // nothing dropped: everything, as written
  whole.append("a\nb");
  CHECK(whole.whole_lines() == "a\nb");
  attn::grader::TailBuffer one(4);  // one long line: kept as it is (no other line)
  one.append("abcdefgh");
  CHECK(one.whole_lines() == "efgh");
}

TEST_CASE("sandbox: bubblewrap missing or failing is one OFF line, not an error", "[sandbox]") {
  {
    ScopedEnv env("ATTNLAB_BWRAP", "/nonexistent/bwrap");
    const Sandbox s = Sandbox::detect({});
    CHECK_FALSE(s.active());
    CHECK(s.status().rfind("OFF: bubblewrap is not available", 0) == 0);
    CHECK(s.status().find('\n') == std::string::npos);
    CHECK(s.status().find("grading continues under the resource limits alone") != std::string::npos);
  }
  {
    ScopedEnv env("ATTNLAB_BWRAP", "/bin/false");
    const Sandbox s = Sandbox::detect({});
    CHECK_FALSE(s.active());
    CHECK(s.status().find("failed its self-test") != std::string::npos);
  }
  {
    ScopedEnv env("ATTNLAB_NO_SANDBOX", "1");
    CHECK(Sandbox::detect({}).status().find("ATTNLAB_NO_SANDBOX") != std::string::npos);
  }
  SandboxOptions off;
  off.enabled = false;
  // Leases of its own: another attnlab on the machine (a test beside this
  // one) may hold base_uid + 2 in the default folder.
  attn::grader::TempDir locks("attnlab-test-");
  off.uid_lock_dir = locks.path();
  CHECK(Sandbox::detect(off).status().find("--no-sandbox") != std::string::npos);
  // Off: no bubblewrap prefix, the environment inherited; as root the
  // submission still drops to a uid of its own (never runs as root), while a
  // tool of the grader's (the compiler) keeps the grader's uid.
  Command c;
  c.argv = {"/bin/true"};
  const Sandbox off_sandbox = Sandbox::detect(off);
  off_sandbox.apply(c, 2);
  CHECK(c.inherit_environment);
  if (off_sandbox.drops_to_own_uid()) {
    REQUIRE(c.prefix.size() > 3);
    CHECK(c.prefix[1] == "--reuid");
    CHECK(c.prefix[2] == std::to_string(off.base_uid + 2));
    CHECK(off_sandbox.status().find("as root it still runs the submission as uid") != std::string::npos);
    Command tool;
    tool.argv = {"/bin/true"};
    tool.grader_tool = true;
    off_sandbox.apply(tool, 2);
    CHECK(tool.prefix.empty());
  } else {
    CHECK(c.prefix.empty());
  }
}

TEST_CASE("sandbox: binds what the command names, never the repository or hidden paths",
          "[sandbox]") {
  const Sandbox s = Sandbox::detect({});
  if (!s.active()) {
    WARN("bubblewrap does not work here: " << s.status());
    return;
  }
  attn::grader::TempDir repo("attnlab-test-repo-");
  fs::create_directories(repo.path() / "exercises/F3");
  fs::create_directories(repo.path() / "solutions/F3");
  std::ofstream(repo.path() / "exercises/F3/attention.hpp") << "// header\n";
  std::ofstream(repo.path() / "solutions/F3/attention.cpp") << "// secret\n";
  attn::grader::TempDir build("attnlab-test-build-");
  const fs::path config = repo.path() / "exercises/F3/teacher.json";  // under a shown folder
  std::ofstream(config) << "{\"seed\": 1}\n";

  SandboxOptions o;
  o.never_bind = {repo.path()};
  o.hidden = {repo.path() / "solutions", config};
  o.show_whole = {repo.path() / "exercises"};
  const Sandbox sb = Sandbox::detect(o);
  REQUIRE(sb.active());

  Command compile;
  compile.argv = {"/usr/bin/c++", "-I" + (repo.path() / "exercises/F3").string(), "-I/usr/include/eigen3",
                  "-c", (repo.path() / "solutions").string(), "-o",
                  (build.path() / "x.o").string(), repo.path().string()};
  compile.cwd = build.path().string();
  const auto prefix = sb.prefix_for(compile, 0);
  const auto b = binds(prefix);
  CHECK(has(b, "/attnlab/exercises"));                  // shown whole, not at its own path
  CHECK(has(b, build.path().string()));                  // the working folder
  CHECK_FALSE(has(b, repo.path().string()));             // never the repository
  CHECK_FALSE(has(b, (repo.path() / "solutions").string()));  // hidden
  CHECK_FALSE(has(b, "/usr/include/eigen3"));            // under the system bind
  // The configuration lies under a shown folder: it is masked.
  auto it = std::find(prefix.begin(), prefix.end(), "/attnlab/exercises/F3/teacher.json");
  REQUIRE(it != prefix.end());
  CHECK(*(it - 1) == "/dev/null");
  CHECK(has(prefix, "--unshare-net"));

  // Run it for real: the configuration reads as empty, the solution is not there.
  Command look;
  look.argv = {"/bin/sh", "-c", "cat \"$1\"; ls \"$2\" 2>&1; cat \"$3\" 2>&1; true", "sh",
               config.string(), (repo.path() / "solutions").string(),
               (repo.path() / "exercises/F3/attention.hpp").string()};
  look.merge_stderr = true;
  sb.apply(look, 0);
  CHECK_FALSE(look.inherit_environment);
  const auto r = attn::grader::run_command(look, std::chrono::seconds(20));
  INFO(r.output);
  CHECK(r.succeeded());
  CHECK(r.output.find("seed") == std::string::npos);
  CHECK(r.output.find("secret") == std::string::npos);
  CHECK(r.output.find("// header") != std::string::npos);
  CHECK(look.argv.back() == "/attnlab/exercises/F3/attention.hpp");
}

TEST_CASE("sandbox: the process limit", "[sandbox]") {
  SandboxOptions o;
  o.process_allowance = 16;
  // Leases of its own: other grades running on the machine hold none of them.
  attn::grader::TempDir locks("attnlab-test-");
  o.uid_lock_dir = locks.path();
  const Sandbox s = Sandbox::detect(o);
  const auto limit = s.process_limit(3);
  if (s.active() && geteuid() == 0) {
    CHECK(limit.value == 16);
    CHECK(limit.how.find("uid " + std::to_string(o.base_uid + 3)) != std::string::npos);
  } else if (geteuid() != 0) {
    CHECK(limit.value > 16);  // the user's current count plus the allowance
  } else {
    CHECK(limit.value == 0);
    CHECK(limit.how.find("not enforced") != std::string::npos);
  }
  CHECK(attn::grader::count_user_tasks(getuid()) >= 1);
  o.process_allowance = 0;
  CHECK(Sandbox::detect(o).process_limit(0).value == 0);
}

TEST_CASE("sandbox: two grades running at once as root never share a uid", "[sandbox]") {
  attn::grader::TempDir locks("attnlab-test-");
  SandboxOptions o;
  o.uid_lock_dir = locks.path();
  const auto uid_in = [](const ProcessLimit& l) {
    const auto at = l.how.find("uid ");
    return at == std::string::npos ? std::string() : l.how.substr(at + 4, l.how.find_first_of(" ,", at + 4) - at - 4);
  };
  std::optional<Sandbox> first = Sandbox::detect(o);
  if (!first->drops_to_own_uid()) {
    WARN("not root with setpriv: submissions do not run as uids of their own");
    return;
  }
  // Slot 0 of two attnlab processes (two Sandboxes: their leases are taken
  // as a second process's would be, by flock on the same folder).
  const Sandbox second = Sandbox::detect(o);
  CHECK(uid_in(first->process_limit(0)) == std::to_string(o.base_uid));
  CHECK(uid_in(second.process_limit(0)) == std::to_string(o.base_uid + 1));
  CHECK(uid_in(second.process_limit(1)) == std::to_string(o.base_uid + 2));
  // A lease lasts as long as its holder: the same answer again, then freed.
  CHECK(uid_in(first->process_limit(0)) == std::to_string(o.base_uid));
  first.reset();
  const Sandbox third = Sandbox::detect(o);
  CHECK(uid_in(third.process_limit(0)) == std::to_string(o.base_uid));
}

TEST_CASE("uid lease: held across fork, free when its holders are gone", "[sandbox]") {
  attn::grader::TempDir locks("attnlab-test-");
  auto lease = UidLease::take(500000, 3, locks.path());
  REQUIRE(lease);
  CHECK(lease->uid() == 500003);
  // A forked process inherits the lock (as a batch's grader does) and sees
  // it held: a lease of its own takes the next uid.
  const pid_t child = fork();
  if (child == 0) {
    const auto other = UidLease::take(500000, 3, locks.path());
    _exit(other && other->uid() == 500004 ? 0 : 1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  // The range wraps: preferred 1023 then 0.
  auto last = UidLease::take(500000, 1023, locks.path());
  REQUIRE(last);
  CHECK(last->uid() == 500000 + 1023);
  auto wrapped = UidLease::take(500000, 1023, locks.path());
  REQUIRE(wrapped);
  CHECK(wrapped->uid() == 500000);
  lease.reset();
  auto again = UidLease::take(500000, 3, locks.path());
  REQUIRE(again);
  CHECK(again->uid() == 500003);
  // A lock folder that cannot be made: no lease (the caller falls back).
  CHECK_FALSE(UidLease::take(500000, 0, "/proc/self/no-such-folder"));
}

TEST_CASE("sandbox: a private copy of the submission", "[sandbox]") {
  attn::grader::TempDir dir("attnlab-test-");
  const fs::path f = dir.path() / "alice.py";
  std::ofstream(f) << "x = 1\n";
  fs::permissions(f, fs::perms(0600), fs::perm_options::replace);
  fs::path copy_dir;
  {
    attn::grader::StagedSubmission staged(f);
    copy_dir = staged.folder();
    CHECK(staged.path().filename() == "alice.py");
    CHECK(staged.path().parent_path() != f.parent_path());
    CHECK((fs::status(staged.path()).permissions() & fs::perms::others_read) != fs::perms::none);
  }
  CHECK_FALSE(fs::exists(copy_dir));
}

TEST_CASE("sandbox: a student's files are staged without following links below the folder",
          "[sandbox]") {
  attn::grader::TempDir dir("attnlab-test-");
  const fs::path student = dir.path() / "alice", secret = dir.path() / "secret.txt";
  fs::create_directories(student / "src");
  std::ofstream(secret) << "the teacher's\n";
  std::ofstream(student / "attention.py") << "x = 1\n";
  std::ofstream(student / "src" / "util.py") << "y = 2\n";
  using Helpers = std::vector<std::pair<fs::path, fs::path>>;
  // Regular files below the folder: staged.
  attn::grader::StagedSubmission ok(student / "attention.py", {}, Helpers{{student / "src" / "util.py", "util.py"}},
                                    student);
  CHECK(fs::is_regular_file(ok.folder() / "util.py"));
  // A helper that is a link (to a file outside), and a folder on the way that
  // became a link after the walk: refused, nothing of the secret copied.
  fs::create_symlink(secret, student / "notes.py");
  CHECK_THROWS_AS(attn::grader::StagedSubmission(student / "attention.py", {},
                                                 Helpers{{student / "notes.py", "notes.py"}}, student),
                  attn::grader::RefusedFile);
  fs::rename(student / "src", dir.path() / "src-moved");
  fs::create_directory_symlink(dir.path(), student / "src");
  CHECK_THROWS_AS(attn::grader::StagedSubmission(student / "attention.py", {},
                                                 Helpers{{student / "src" / "secret.txt", "util.py"}},
                                                 student),
                  attn::grader::RefusedFile);
  // The entry itself a link below the folder: refused; a FIFO: refused without blocking.
  fs::create_symlink(secret, student / "link.py");
  CHECK_THROWS_AS(attn::grader::StagedSubmission(student / "link.py", {}, {}, student),
                  attn::grader::RefusedFile);
  REQUIRE(mkfifo((student / "fifo.py").c_str(), 0644) == 0);
  CHECK_THROWS_AS(attn::grader::StagedSubmission(student / "fifo.py", {}, {}, student),
                  attn::grader::RefusedFile);
  // A file the user named (no student folder) may be a link.
  attn::grader::StagedSubmission chosen(student / "link.py");
  CHECK(fs::file_size(chosen.path()) == fs::file_size(secret));
}

TEST_CASE("sandbox: a memory cgroup bounds all of a submission's processes together", "[sandbox]") {
  std::string why;
  const auto cg = attn::grader::MemoryCgroup::create(std::uint64_t{100} << 20, &why);
  if (!cg) {
    WARN("no memory cgroup can be made here, the limit is per process: " << why);
    return;
  }
  CHECK(cg->limit_bytes() == (std::uint64_t{100} << 20));
  // Two processes of 70 MiB each: either alone fits in 100 MiB, both do not.
  Command c;
  c.argv = {"/bin/sh", "-c",
            "for k in 1 2; do /usr/bin/python3 -c 'import time; x = bytearray(70 << 20); "
            "time.sleep(3)' & done; wait"};
  c.cgroup_procs = cg->procs_file();
  c.limits.address_space_bytes = 0;
  c.limits.cpu_seconds = 0;
  (void)run_command(c, std::chrono::seconds(30));
  CHECK(cg->oom_kills() >= 1);
  // One of 30 MiB fits.
  const std::uint64_t before = cg->oom_kills();
  Command small = c;
  small.argv = {"/usr/bin/python3", "-c", "x = bytearray(30 << 20)"};
  CHECK(run_command(small, std::chrono::seconds(30)).succeeded());
  CHECK(cg->oom_kills() == before);
}

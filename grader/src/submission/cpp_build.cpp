// Building a C++ submission against the exercise header and the prebuilt harness.
#include "submission/cpp_build.hpp"
#include "protocol/untrusted_text.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <variant>

#include "exercises/registry.hpp"
#include "sandbox/exit_status.hpp"
#include "attn/grader/paths.hpp"
#include "sandbox/run_command.hpp"
#include "exercises/listed.hpp"
#include "submission/precompiled_header.hpp"

namespace attn::grader {

namespace {

/// The interface headers of `spec`, below exercises/: its own, then those
/// of the exercises its header includes (F4's includes F3's).
std::vector<std::string> interface_headers_of(const ExerciseSpec& spec) {
  std::vector<std::string> headers = {spec.id + "/" + spec.cpp.header};
  for (const auto& used : spec.cpp.uses)
    if (const ExerciseSpec* u = find_exercise_spec(used)) headers.push_back(u->id + "/" + u->cpp.header);
  return headers;
}

/// "f3::attention(...)", "t1::attention_tiled(...) and t1::attention(...)".
std::string entry_functions_text(const ExerciseSpec& spec) {
  std::vector<std::string> calls;
  for (const auto& entry : spec.cpp.entries) calls.push_back(spec.cpp.ns + "::" + entry + "(...)");
  return listed(calls);
}

}  // namespace

CppToolchain toolchain_for(const std::string& exercise, const std::vector<std::string>& also) {
  const ExerciseSpec* spec = find_exercise_spec(exercise);
  if (!spec || spec->cpp.header.empty())
    throw std::invalid_argument("exercise " + exercise + " has no C++ harness");
  CppToolchain t;
  t.compiler = paths::cxx_compiler;
  t.harness_target = spec->cpp_harness_target();
  t.harness_library = paths::harness_library(t.harness_target);
  const std::filesystem::path exercises(paths::exercises_dir);
  t.interface_dir = (exercises / exercise).string();
  t.entry_function = entry_functions_text(*spec);
  t.entry_header = "exercises/" + exercise + "/" + spec->cpp.header;
  auto add_headers = [&](const ExerciseSpec& s) {
    for (const auto& h : interface_headers_of(s)) {
      const std::string path = (exercises / h).string();
      if (std::find(t.interface_headers.begin(), t.interface_headers.end(), path) == t.interface_headers.end())
        t.interface_headers.push_back(path);
    }
  };
  add_headers(*spec);
  for (const auto& id : also) {
    const ExerciseSpec* other = find_exercise_spec(id);
    if (id == exercise || !other || other->cpp.header.empty()) continue;
    add_headers(*other);
    t.other_interface_dirs.push_back((exercises / id).string());
  }
  t.include_dirs = {paths::eigen_include_dir};
  return t;
}

std::string reproduction_build_command(const std::string& exercise,
                                       const std::vector<std::string>& sources,
                                       const std::vector<std::string>& also) {
  const CppToolchain t = toolchain_for(exercise, also);
  Command c;
  c.argv = {t.compiler};
  c.argv.insert(c.argv.end(), t.flags.begin(), t.flags.end());
  c.argv.push_back("-I" + t.interface_dir);
  for (const auto& dir : t.other_interface_dirs) c.argv.push_back("-I" + dir);
  for (const auto& dir : t.include_dirs) c.argv.push_back("-I" + dir);
  // As the grader's build does: "-x c++" for a suffix g++ does not take for C++ (A.CC).
  static const std::set<std::string> gcc_knows = {".cc", ".cp", ".cxx", ".cpp", ".CPP", ".c++", ".C"};
  for (const auto& s : sources)
    if (!gcc_knows.count(std::filesystem::path(s).extension().string())) {
      c.argv.insert(c.argv.end(), {"-x", "c++"});
      break;
    }
  c.argv.push_back("repro.cpp");
  c.argv.insert(c.argv.end(), sources.begin(), sources.end());
  c.argv.insert(c.argv.end(), {"-o", "repro"});
  return c.display() + " && ./repro";
}

std::string link_error_hint(const std::string& linker_output, const CppToolchain& toolchain) {
  // GNU ld: "multiple definition of `main'"; lld and gold: "duplicate symbol: main".
  if (linker_output.find("multiple definition of `main'") != std::string::npos ||
      linker_output.find("duplicate symbol: main") != std::string::npos)
    return "your file defines main(); the grader supplies main \u2014 remove it";
  if (!toolchain.entry_function.empty()) {
    // "undefined reference to `f3::attention(Eigen::Matrix<...> const&, ...)'"
    const std::string ns = toolchain.entry_function.substr(0, toolchain.entry_function.find("::") + 2);
    std::size_t at = linker_output.find("undefined reference to `" + ns);
    std::size_t skip = std::string("undefined reference to `").size();
    if (at == std::string::npos) {
      at = linker_output.find("undefined symbol: " + ns);
      skip = std::string("undefined symbol: ").size();
    }
    if (at != std::string::npos) {
      // Name the function the linker missed ("c1::padding_mask"), not every entry.
      const std::size_t begin = at + skip;
      const std::size_t end = linker_output.find_first_of("(`'\n", begin);
      const std::string missing = linker_output.substr(begin, end - begin);
      return "the file does not define " + (missing.empty() ? toolchain.entry_function : missing + "(...)") +
             " as declared in " + toolchain.entry_header +
             " (the same namespace, name and parameter types)";
    }
  }
  return "";
}

std::string trim_diagnostics(const std::string& text, std::size_t max_lines,
                             std::size_t max_bytes) {
  std::istringstream in(text);
  std::string line, out;
  std::size_t lines = 0, total_lines = 0;
  bool cut = false;
  while (std::getline(in, line)) {
    ++total_lines;
    if (cut) continue;
    if (lines == max_lines || out.size() + line.size() + 1 > max_bytes) {
      cut = true;
      continue;
    }
    // The compiler quotes the submission's source: its bytes are the submission's.
    out += untrusted_text(line, max_bytes);
    out += '\n';
    ++lines;
  }
  if (cut) {
    out += "[... " + std::to_string(total_lines - lines) + " more lines cut]\n";
  }
  return out;
}

namespace {

/// `text` with every `from` replaced by `to`.
std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

/// A build that stopped before compiling: the compiler or harness missing.
CppBuild missing(std::string diagnostics, std::string command = "") {
  CppBuild build;
  build.status = CppBuild::Status::compiler_missing;
  build.diagnostics = std::move(diagnostics);
  build.command = std::move(command);
  return build;
}

/// Runs `compiler --version` and checks that the prebuilt harness is there:
/// the compiler's first line, or the build that says what is missing.
std::variant<std::string, CppBuild> probe_toolchain(const CppToolchain& toolchain) {
  Command version;
  version.argv = {toolchain.compiler, "--version"};
  version.merge_stderr = true;
  const CommandResult v = run_command(version, std::chrono::seconds(30));
  if (!v.succeeded())
    return missing("cannot run the C++ compiler " + toolchain.compiler + ": " +
                       (v.started ? describe_exit(v.wait_status) : v.output),
                   version.display());
  std::error_code ec;
  if (!std::filesystem::exists(toolchain.harness_library, ec))
    return missing("the prebuilt C++ harness " + toolchain.harness_library + " is missing: build the " +
                   (toolchain.harness_target.empty() ? std::string("harness")
                                                     : toolchain.harness_target) +
                   " target");
  return v.output.substr(0, v.output.find('\n'));
}

/// Where the compiler finds the exercise's headers as the build runs.
struct StagedHeaders {
  std::string interface_dir;            ///< the exercise's own folder
  std::vector<std::string> other_dirs;  ///< the other exercises' folders it includes
  /// Whether interface_dir holds a precompiled form of its headers
  /// (precompiled_header.hpp) beside them.
  bool precompiled = false;
};

/// Copies the interface headers to `workdir`/include (see
/// CppToolchain::interface_headers), or keeps the checkout's folders when
/// there are none to copy; nullopt and `error` set when a copy fails.
std::optional<StagedHeaders> stage_headers(const CppToolchain& toolchain,
                                           const std::filesystem::path& workdir, std::string& error) {
  namespace fs = std::filesystem;
  StagedHeaders staged{toolchain.interface_dir, toolchain.other_interface_dirs, false};
  if (toolchain.interface_headers.empty()) return staged;
  const fs::path include = workdir / "include";
  std::error_code ec;
  for (const auto& h : toolchain.interface_headers) {
    const fs::path header(h);
    const fs::path dest = include / header.parent_path().filename() / header.filename();
    fs::create_directories(dest.parent_path(), ec);
    if (ec || !fs::copy_file(header, dest, fs::copy_options::overwrite_existing, ec) || ec) {
      error = "cannot copy the exercise header " + h + " to the build folder" +
              (ec ? ": " + ec.message() : std::string());
      return std::nullopt;
    }
  }
  staged.interface_dir = (include / fs::path(toolchain.interface_dir).filename()).string();
  staged.other_dirs.clear();
  for (const auto& dir : toolchain.other_interface_dirs)
    staged.other_dirs.push_back((include / fs::path(dir).filename()).string());
  return staged;
}

/// The compile command of one source file into `object`, with the
/// exercise's folders `headers`.
Command compile_command(const CppToolchain& toolchain, const std::filesystem::path& source,
                        const std::string& object, const StagedHeaders& headers) {
  Command c;
  c.argv = {toolchain.compiler};
  c.argv.insert(c.argv.end(), toolchain.flags.begin(), toolchain.flags.end());
  // ccache hashes the .gch a compile uses (ccache(1), "Precompiled headers").
  if (headers.precompiled) c.argv.push_back("-fpch-preprocess");
  if (!headers.interface_dir.empty()) c.argv.push_back("-I" + headers.interface_dir);
  for (const auto& dir : headers.other_dirs) c.argv.push_back("-I" + dir);
  for (const auto& dir : toolchain.include_dirs) c.argv.push_back("-I" + dir);
  for (const auto& dir : toolchain.student_include_dirs) c.argv.push_back("-I" + dir);
  // g++ takes a file for C++ by its suffix, in the case it knows: "-x c++"
  // for the others the grader accepts (A.CC, sol.Cpp).
  static const std::set<std::string> gcc_knows = {".cc", ".cp", ".cxx", ".cpp", ".CPP", ".c++", ".C"};
  if (!gcc_knows.count(source.extension().string())) c.argv.insert(c.argv.end(), {"-x", "c++"});
  c.argv.insert(c.argv.end(), {"-c", std::filesystem::absolute(source).string(), "-o", object});
  return c;
}

/// The build's steps, each as it runs (before the sandbox's wrap, applied as
/// it starts: run_steps) and as the student would type it
/// (the checkout's headers, no sandbox: what reports show).
struct BuildSteps {
  std::vector<Command> run;
  std::vector<std::string> shown;
  /// Each step as it runs without the compiler cache (the same as `run`'s
  /// when the cache is off): what a compile falls back to when ccache
  /// itself fails (run_steps).
  std::vector<Command> uncached;
};

/// True when `output` of a compile through ccache is ccache's own failure
/// (its messages start "ccache: error:"), not the compiler's: a cache
/// folder it cannot write, a full disk. The compile is then run again
/// without the cache, so a fault of the cache never costs a grade.
bool cache_failed(const std::string& output) {
  return output.rfind("ccache: error:", 0) == 0 || output.find("\nccache: error:") != std::string::npos;
}

/// The script ccache runs the compiler (and its preprocessor) through
/// (CCACHE_PREFIX, CCACHE_PREFIX_CPP): in the sandbox, which sets
/// ATTNLAB_CCACHE_HIDE to the cache's folder (Sandbox::apply), a bwrap of
/// its own covers that folder with an empty one, so the compiler, its
/// assembler and the submission's `#include`s cannot read an entry; else the
/// compiler as it is. Written into the build folder; false if it cannot be.
bool write_cache_prefix(const std::filesystem::path& script) {
  std::ofstream out(script);
  out << R"(#!/bin/sh
# attnlab: ccache runs the compiler through this (cpp_build.cpp write_cache_prefix)
if [ -n "${ATTNLAB_CCACHE_HIDE:-}" ]; then
  exec "$ATTNLAB_CCACHE_BWRAP" --dev-bind / / --tmpfs "$ATTNLAB_CCACHE_HIDE" -- "$@"
fi
exec "$@"
)";
  out.close();
  std::error_code ec;
  std::filesystem::permissions(script, std::filesystem::perms(0755), std::filesystem::perm_options::replace, ec);
  return out && !ec;
}

/// Makes `c` (a compile) run through ccache with `cache`: the program in
/// front, its variables, the build folder `workdir` as /build and the entry's
/// folder `entry_dir` as /submission in the sandbox.
void use_cache(Command& c, const CompilerCache& cache, const std::filesystem::path& workdir,
               const std::filesystem::path& entry_dir) {
  const std::string prefix = (workdir / ".attnlab-ccache-prefix").string();
  c.argv.insert(c.argv.begin(), cache.ccache);
  c.env.insert(c.env.end(), {{"CCACHE_DIR", cache.dir.string()},
                             {"CCACHE_MAXSIZE", cache.max_size},
                             {"CCACHE_BASEDIR", workdir.string()},
                             {"CCACHE_NOHASHDIR", "1"},
                             {"CCACHE_PREFIX", prefix},
                             {"CCACHE_PREFIX_CPP", prefix},
                             {"CCACHE_STATSLOG", (workdir / ".attnlab-ccache-stats").string()},
                             // Its temporary files (the preprocessor's output) where the
                             // compiler, which cannot see the cache's folder, can write them.
                             {"CCACHE_TEMPDIR", (workdir / ".attnlab-ccache-tmp").string()}});
  c.compiler_cache = cache.dir.string();
  c.moved = {{workdir.string(), "/build"}};
  const std::filesystem::path rel = workdir.lexically_relative(entry_dir);
  if (entry_dir.has_relative_path() && (rel.empty() || *rel.begin() == ".."))
    c.moved.push_back({entry_dir.string(), "/submission"});
}

/// What ccache's stats log in `workdir` says of the compiles (CppBuild::cache).
std::string cache_outcome(const std::filesystem::path& workdir) {
  std::ifstream log(workdir / ".attnlab-ccache-stats");
  std::string line;
  int files = 0, hits = 0;
  while (std::getline(log, line)) {
    if (line.rfind("# ", 0) == 0) ++files;
    if (line == "direct_cache_hit" || line == "preprocessed_cache_hit") ++hits;
  }
  if (files == 0) return "not used";
  if (files == 1) return hits ? "hit" : "miss";
  return std::to_string(hits) + " of " + std::to_string(files) + " files hit";
}

/// The entry's compile, each helper's (one object each), then the link
/// with the harness into `executable`.
BuildSteps build_steps(const CppToolchain& toolchain, const std::filesystem::path& workdir,
                       const std::vector<std::filesystem::path>& sources, const StagedHeaders& staged,
                       const std::string& executable) {
  const StagedHeaders checkout{toolchain.interface_dir, toolchain.other_interface_dirs, false};
  BuildSteps steps;
  Command link;
  // --whole-archive: the harness's main is always linked, so a submission
  // that defines its own main() gets "multiple definition of `main'" (and
  // link_error_hint's plain words) instead of silently replacing the harness.
  link.argv = {toolchain.compiler, "-o", executable};
  for (std::size_t k = 0; k < sources.size(); ++k) {
    const std::string object =
        (workdir / (k == 0 ? std::string("submission.o") : "helper" + std::to_string(k) + ".o")).string();
    steps.shown.push_back(compile_command(toolchain, sources[k], object, checkout).display());
    steps.run.push_back(compile_command(toolchain, sources[k], object, staged));
    steps.uncached.push_back(steps.run.back());
    if (toolchain.cache.on()) {
      use_cache(steps.run.back(), toolchain.cache, workdir,
                std::filesystem::absolute(sources.front()).parent_path().lexically_normal());
      // ccache cannot see __TIME__ or a #define's change through a .gch (ccache(1)).
      if (staged.precompiled)
        steps.run.back().env.push_back({"CCACHE_SLOPPINESS", "pch_defines,time_macros"});
    }
    link.argv.push_back(object);
  }
  link.argv.insert(link.argv.end(),
                   {"-Wl,--whole-archive", toolchain.harness_library, "-Wl,--no-whole-archive"});
  steps.shown.push_back(link.display());
  steps.uncached.push_back(link);
  steps.run.push_back(std::move(link));
  for (auto* list : {&steps.run, &steps.uncached})
    for (Command& step : *list) {
      step.merge_stderr = true;
      step.grader_tool = true;
      step.cwd = workdir.string();
      step.limits.cpu_seconds = 0;  // the wall-clock timeout bounds it
      step.limits.file_size_bytes = std::uint64_t{512} << 20;
    }
  return steps;
}

/// Runs the steps in order; `build` gets the status and diagnostics of the
/// first that fails (the link's with link_error_hint's line), and each
/// step's shown command as it runs. A compile that ccache itself failed
/// (cache_failed) runs again without it, and `cache_note` says so. True
/// when every step succeeded.
bool run_steps(BuildSteps& steps, const CppToolchain& toolchain, CppBuild& build, std::string& cache_note) {
  // Wrapped (the sandbox) as it runs, not before: a compile through the
  // compiler cache and the link run as different uids as root, and each
  // is given the build folder as it starts (Sandbox::apply).
  const auto run = [&](Command step) {
    if (toolchain.wrap) toolchain.wrap(step);
    return run_command(step, toolchain.timeout);
  };
  for (std::size_t k = 0; k < steps.run.size(); ++k) {
    build.command = steps.shown[k];
    CommandResult r = run(steps.run[k]);
    if (r.started && !r.succeeded() && !r.timed_out && !steps.run[k].compiler_cache.empty() &&
        cache_failed(r.output)) {
      cache_note = r.output.substr(0, r.output.find('\n'));
      steps.run[k] = steps.uncached[k];
      r = run(steps.run[k]);
    }
    if (!r.started) {
      build.status = CppBuild::Status::compiler_missing;
      build.diagnostics = r.output;
      return false;
    }
    if (r.succeeded()) continue;
    build.status = CppBuild::Status::not_gradable;
    // The compiler's words (which quote the submission) fenced; the grader's own hint not.
    // The folders the sandbox showed elsewhere (/submission, /build) named as
    // outside, so the messages read as without the cache.
    std::string output = r.output;
    for (const auto& [host, inside] : steps.run[k].moved)
      output = replace_all(std::move(output), inside + "/", host + "/");
    build.diagnostics = fenced(trim_diagnostics(output));
    if (r.timed_out) {
      build.diagnostics += "the compiler did not finish within " + describe_duration(toolchain.timeout) + "\n";
      return false;
    }
    if (k + 1 == steps.run.size())  // the link
      if (const std::string hint = link_error_hint(output, toolchain); !hint.empty())
        build.diagnostics = hint + "\n" + build.diagnostics;
    if (build.diagnostics.empty()) build.diagnostics = "the compiler " + describe_exit(r.wait_status) + "\n";
    return false;
  }
  return true;
}

}  // namespace

CppBuild build_cpp_submission(const std::filesystem::path& source,
                              const std::filesystem::path& workdir,
                              const CppToolchain& toolchain,
                              const std::vector<std::filesystem::path>& helper_sources) {
  auto probed = probe_toolchain(toolchain);
  if (auto* stopped = std::get_if<CppBuild>(&probed)) return std::move(*stopped);
  CppBuild build;
  build.compiler_version = std::get<std::string>(probed);
  std::string error;
  auto staged = stage_headers(toolchain, workdir, error);
  if (!staged) {
    build.status = CppBuild::Status::compiler_missing;
    build.diagnostics = error;
    return build;
  }
  std::vector<std::filesystem::path> sources = {source};
  sources.insert(sources.end(), helper_sources.begin(), helper_sources.end());
  const std::string executable = (workdir / "submission").string();
  CppToolchain used = toolchain;
  if (used.cache.on() && !write_cache_prefix(workdir / ".attnlab-ccache-prefix")) {
    used.cache.ccache.clear();
    used.cache.why_off = "cannot write its script to the build folder";
  }
  if (toolchain.interface_headers.empty()) {
    build.precompiled = "none (the checkout's headers are used as they are)";
  } else {
    const PrecompiledHeaders precompiled =
        precompiled_headers(used, build.compiler_version, staged->interface_dir);
    staged->precompiled = precompiled.placed;
    build.precompiled = precompiled.said;
  }
  BuildSteps steps = build_steps(used, workdir, sources, *staged, executable);
  std::string cache_failure;
  const bool built = run_steps(steps, used, build, cache_failure);
  build.cache = !used.cache.on()        ? "off: " + used.cache.why_off
                : cache_failure.empty() ? cache_outcome(workdir)
                                        : "failed, compiled without it (" + cache_failure + ")";
  if (!built) return build;
  build.status = CppBuild::Status::built;
  build.executable = executable;
  return build;
}

}  // namespace attn::grader

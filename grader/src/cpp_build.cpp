// Building a C++ submission against the exercise header and the prebuilt harness.
#include "attn/grader/cpp_build.hpp"

#include <sstream>

#include "attn/grader/exit_status.hpp"
#include "attn/grader/paths.hpp"
#include "attn/grader/run_command.hpp"

namespace attn::grader {

CppToolchain f3_toolchain() {
  CppToolchain t;
  t.compiler = paths::cxx_compiler;
  t.include_dirs = {paths::f3_include_dir, paths::eigen_include_dir};
  t.harness_library = paths::f3_harness_library;
  return t;
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
    out += line;
    out += '\n';
    ++lines;
  }
  if (cut) {
    out += "[... " + std::to_string(total_lines - lines) + " more lines cut]\n";
  }
  return out;
}

CppBuild build_cpp_submission(const std::filesystem::path& source,
                              const std::filesystem::path& workdir,
                              const CppToolchain& toolchain) {
  CppBuild build;

  Command version;
  version.argv = {toolchain.compiler, "--version"};
  version.merge_stderr = true;
  const CommandResult v = run_command(version, std::chrono::seconds(30));
  if (!v.succeeded()) {
    build.status = CppBuild::Status::compiler_missing;
    build.command = version.display();
    build.diagnostics = "cannot run the C++ compiler " + toolchain.compiler + ": " +
                        (v.started ? describe_exit(v.wait_status) : v.output);
    return build;
  }
  build.compiler_version = v.output.substr(0, v.output.find('\n'));

  std::error_code ec;
  if (!std::filesystem::exists(toolchain.harness_library, ec)) {
    build.status = CppBuild::Status::compiler_missing;
    build.diagnostics = "the prebuilt C++ harness " + toolchain.harness_library +
                        " is missing: build the attnlab_cpp_harness_f3 target";
    return build;
  }

  const auto object = (workdir / "submission.o").string();
  const auto executable = (workdir / "submission").string();

  Command compile;
  compile.argv = {toolchain.compiler};
  compile.argv.insert(compile.argv.end(), toolchain.flags.begin(), toolchain.flags.end());
  for (const auto& dir : toolchain.include_dirs) compile.argv.push_back("-I" + dir);
  compile.argv.insert(compile.argv.end(),
                      {"-c", std::filesystem::absolute(source).string(), "-o", object});
  Command link;
  link.argv = {toolchain.compiler, "-o", executable, object, toolchain.harness_library};

  for (Command* step : {&compile, &link}) {
    step->merge_stderr = true;
    step->cwd = workdir.string();
    step->limits.cpu_seconds = 0;  // the wall-clock timeout bounds it
    step->limits.file_size_bytes = std::uint64_t{512} << 20;
    build.command = step->display();
    const CommandResult r = run_command(*step, toolchain.timeout);
    if (!r.started) {
      build.status = CppBuild::Status::compiler_missing;
      build.diagnostics = r.output;
      return build;
    }
    if (r.timed_out) {
      build.status = CppBuild::Status::not_gradable;
      build.diagnostics = trim_diagnostics(r.output) + "the compiler did not finish within " +
                          describe_duration(toolchain.timeout) + "\n";
      return build;
    }
    if (!r.succeeded()) {
      build.status = CppBuild::Status::not_gradable;
      build.diagnostics = trim_diagnostics(r.output);
      if (build.diagnostics.empty()) build.diagnostics = "the compiler " + describe_exit(r.wait_status) + "\n";
      return build;
    }
  }
  build.status = CppBuild::Status::built;
  build.executable = executable;
  return build;
}

}  // namespace attn::grader

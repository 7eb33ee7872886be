// Turning a submission file into a protocol-speaking command.
#include "submission/submission.hpp"
#include "exercises/registry.hpp"
#include "sandbox/file_problem.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>

#include "attn/ref/number_format.hpp"
#include "submission/cpp_build.hpp"
#include "submission/recognise.hpp"
#include "attn/grader/paths.hpp"
#include "sandbox/python_finder.hpp"

namespace attn::grader {
namespace {

namespace fs = std::filesystem;

/// Variables every submission process gets: one BLAS thread (the grader
/// runs one case at a time and the machine is shared), no .pyc files next
/// to the submission.
void add_common_environment(Command& cmd) {
  cmd.env.emplace_back("OMP_NUM_THREADS", "1");
  cmd.env.emplace_back("OPENBLAS_NUM_THREADS", "1");
  cmd.env.emplace_back("MKL_NUM_THREADS", "1");
  cmd.env.emplace_back("PYTHONDONTWRITEBYTECODE", "1");
  cmd.env.emplace_back("PYTHONIOENCODING", "utf-8");
}

Launch prepare_python(const fs::path& file, const LaunchOptions& options, Launch launch) {
  const PythonSearch search = find_python(options.python);
  if (!search.found) {
    launch.status = Launch::Status::infrastructure_error;
    launch.message = "no Python interpreter with NumPy was found";
    for (const auto& r : search.rejected) launch.message += "\n  tried " + r;
    launch.message +=
        "\nInstall NumPy for the system Python (Debian: apt-get install python3-numpy) "
        "or name an interpreter that has it with --python PATH.";
    return launch;
  }
  const PythonInterpreter& py = *search.found;
  launch.runtime = py.path;
  if (!py.executable.empty() && py.executable != py.path) launch.runtime += " (" + py.executable + ")";
  launch.runtime += ", Python " + py.python_version + ", NumPy " + py.numpy_version;
  launch.command.argv = {py.path, "-B",
                         options.python_harness.empty() ? python_harness_path() : options.python_harness,
                         "--exercise", options.exercise};
  // An exercise's spec (exercises/registry.json); an operation no exercise
  // serves (batched_attention) is known to the harness.
  if (const ExerciseSpec* spec = find_exercise_spec(options.exercise)) {
    auto comma_joined = [](const std::vector<std::string>& names) {
      std::string out;
      for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
      return out;
    };
    launch.command.argv.insert(launch.command.argv.end(),
                               {"--entries", comma_joined(spec->python.entries), "--ops",
                                comma_joined(spec->ops)});
    if (!spec->python.companions.empty())
      launch.command.argv.insert(launch.command.argv.end(),
                                 {"--companions", comma_joined(spec->python.companions)});
  }
  if (!options.python_entry.empty()) {
    launch.command.argv.push_back("--entry");
    launch.command.argv.push_back(options.python_entry);
  }
  // The formats an answer may hold: the names of the one number-format
  // table, so the harness keeps no list of its own.
  std::string real_types;
  for (const auto& f : attn::ref::number_formats())
    real_types += (real_types.empty() ? "" : ",") + std::string(f.name);
  launch.command.argv.insert(launch.command.argv.end(), {"--real-types", real_types});
  launch.command.argv.push_back(fs::absolute(file).string());
  launch.status = Launch::Status::ready;
  return launch;
}

Launch prepare_cpp(const fs::path& file, const LaunchOptions& options, Launch launch) {
  CppToolchain toolchain;
  try {
    // A file of several exercises (F3 on its own F2) includes their headers too.
    std::vector<fs::path> sources = {file};
    sources.insert(sources.end(), options.cpp_helper_sources.begin(), options.cpp_helper_sources.end());
    launch.cpp_other_interfaces = included_interfaces(sources);
    toolchain = toolchain_for(options.exercise, launch.cpp_other_interfaces);
  } catch (const std::invalid_argument& e) {
    launch.status = Launch::Status::usage_error;
    launch.message = std::string("cannot grade a C++ file: ") + e.what();
    return launch;
  }
  try {
    launch.workdir = std::make_shared<TempDir>("attnlab-build-");
    // Passable, not listable: the submission's uid runs the executable inside.
    std::filesystem::permissions(launch.workdir->path(), std::filesystem::perms(0711),
                                 std::filesystem::perm_options::replace);
  } catch (const std::exception& e) {
    launch.status = Launch::Status::infrastructure_error;
    launch.message = e.what();
    return launch;
  }
  toolchain.timeout = options.compile_timeout;
  if (!options.cpp_helper_folder.empty()) toolchain.student_include_dirs.push_back(options.cpp_helper_folder.string());
  toolchain.wrap = options.wrap;
  toolchain.cache = options.compiler_cache;
  CppBuild build;
  try {
    build = build_cpp_submission(file, launch.workdir->path(), toolchain, options.cpp_helper_sources);
  } catch (const std::exception& e) {
    launch.status = Launch::Status::infrastructure_error;
    launch.message = std::string("cannot run the compiler: ") + e.what();
    return launch;
  }
  launch.runtime = toolchain.compiler;
  if (!build.compiler_version.empty()) launch.runtime += " (" + build.compiler_version + ")";
  if (!build.cache.empty()) launch.runtime += "; compiler cache: " + build.cache;
  if (!build.precompiled.empty()) launch.runtime += "; precompiled header: " + build.precompiled;
  launch.build_command = build.command;
  switch (build.status) {
    case CppBuild::Status::built:
      launch.status = Launch::Status::ready;
      launch.command.argv = {build.executable};
      if (options.cpp_probe_weights) launch.command.argv.push_back("--probe-weights");
      break;
    case CppBuild::Status::not_gradable:
      launch.status = Launch::Status::not_gradable;
      launch.message = build.diagnostics;
      break;
    case CppBuild::Status::compiler_missing:
      launch.status = Launch::Status::infrastructure_error;
      launch.message = build.diagnostics;
      break;
  }
  return launch;
}

}  // namespace

const char* language_name(Language l) {
  switch (l) {
    case Language::python: return "Python";
    case Language::cpp: return "C++";
    case Language::executable: return "executable";
  }
  return "unknown";
}

std::string lower_extension(const fs::path& file) {
  std::string ext = file.extension().string();
  for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return ext;
}

bool is_answers_file(const fs::path& file) { return lower_extension(file) == ".json"; }

std::optional<Language> detect_language(const fs::path& file) {
  const std::string ext = lower_extension(file);
  if (ext == ".py") return Language::python;
  if (ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".c++" ||
      file.extension() == ".C")
    return Language::cpp;
  if (fs::is_regular_file(file) && access(file.c_str(), X_OK) == 0) return Language::executable;
  return std::nullopt;
}

std::string python_harness_path() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path beside = self.parent_path() / "attnlab_harness.py";
    if (fs::is_regular_file(beside, ec)) return beside.string();
  }
  return paths::python_harness;
}

namespace {
/// A ready launch's command with options.wrap applied (the sandbox).
Launch wrapped(Launch launch, const LaunchOptions& options) {
  if (launch.status == Launch::Status::ready && options.wrap) options.wrap(launch.command);
  return launch;
}
}  // namespace

Launch prepare_submission(const fs::path& file, const LaunchOptions& options) {
  Launch launch;
  if (const auto problem = not_a_file(file)) {
    launch.status = Launch::Status::usage_error;
    launch.message = *problem;
    return launch;
  }
  const auto language = detect_language(file);
  if (!language) {
    launch.status = Launch::Status::usage_error;
    launch.message = file.string() +
                     " is not a .py or .cpp file and not executable; a submission is a "
                     "Python file, a C++ file, or a program that speaks the protocol";
    return launch;
  }
  launch.language = *language;
  launch.command.limits = options.limits;
  add_common_environment(launch.command);
  switch (*language) {
    case Language::python:
      return wrapped(prepare_python(file, options, std::move(launch)), options);
    case Language::cpp:
      return wrapped(prepare_cpp(file, options, std::move(launch)), options);
    case Language::executable:
      launch.command.argv = {fs::absolute(file).string()};
      launch.runtime = "the file itself, speaking attnlab-protocol/1";
      launch.status = Launch::Status::ready;
      return wrapped(std::move(launch), options);
  }
  return launch;
}

}  // namespace attn::grader

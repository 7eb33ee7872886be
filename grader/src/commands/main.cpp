// attnlab: the command line. Each subcommand lives in its own file
// (commands/README.md): `grade` in grade_cli.cpp, `check` in check_cli.cpp,
// `merge` and `gradescope-zip` in class_cli.cpp, `mutants` and `demo` in
// teaching_cli.cpp; here they are added, the arguments parsed, and the one
// given run.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "attn/grader/paths.hpp"
#include "exercises/registry.hpp"
#include "commands/check_cli.hpp"
#include "commands/class_cli.hpp"
#include "commands/cli_checks.hpp"
#include "commands/grade_cli.hpp"
#include "commands/teaching_cli.hpp"

namespace {

/// The exercise registry is read before the command line is built (its ids
/// are the choices of --exercise): one that cannot be read is an
/// infrastructure error, said in one line (exit 2), not an abort.
bool registry_readable() {
  try {
    attn::grader::exercise_specs();
    return true;
  } catch (const std::exception& e) {
    std::cerr << "attnlab: " << e.what() << "\n";
    return false;
  }
}

/// `code`, the command's exit status, once what it wrote to standard output
/// has been flushed; 2 when a write to it failed (a full disk, /dev/full),
/// said on stderr: a report or table that never arrived is not a success.
int stdout_checked(int code) {
  std::cout.flush();
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int error = errno;
  if (!std::cout || !flushed || std::ferror(stdout)) {
    std::cerr << "attnlab: cannot write standard output"
              << (error ? std::string(": ") + std::strerror(error) : std::string()) << "\n";
    return 2;
  }
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  if (!registry_readable()) return 2;
  namespace check = attn::grader::cli;
  CLI::App app{"attnlab: grade scaled dot-product attention submissions (section 32.2)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("attnlab ") + attn::grader::paths::version);
  // attnlab grade (grade_cli.hpp).
  const auto grade_command = attn::grader::add_grade_command(app);
  // "--cases must be a whole number from 1 to 100000000, got '0'" (CLI11 writes "--cases: must ...").
  // attnlab mutants, attnlab demo (teaching_cli.hpp).
  const auto teaching = attn::grader::add_teaching_commands(app);
  // attnlab merge, attnlab gradescope-zip (class_cli.hpp).
  const auto class_commands = attn::grader::add_class_commands(app);
  // attnlab check (check_cli.hpp).
  const auto check_command = attn::grader::add_check_command(app);
  app.failure_message(check::failure_message);

  // An unknown command: say which one was meant (CLI11 2.1 would only say
  // "a subcommand is required").
  if (argc > 1 && argv[1][0] != '-') {
    const auto names = check::subcommand_names(&app);
    if (std::find(names.begin(), names.end(), std::string(argv[1])) == names.end()) {
      const std::string c = check::closest(argv[1], names);
      std::cerr << "attnlab: unknown command '" << argv[1] << "'"
                << (c.empty() ? "" : "; did you mean '" + c + "'?") << " (commands:";
      for (const auto& n : names) std::cerr << " " << n;
      std::cerr << ")\n";
      return 2;
    }
    // The same for a command made of subcommands (`attnlab experiment f6`:
    // CLI11 would only say "A subcommand is required").
    const CLI::App* command = app.get_subcommand(argv[1]);
    const auto subs = check::subcommand_names(command);
    if (argc > 2 && argv[2][0] != '-' && command->get_require_subcommand_min() > 0 &&
        std::find(subs.begin(), subs.end(), std::string(argv[2])) == subs.end()) {
      std::cerr << "attnlab " << argv[1] << ": unknown " << argv[1] << " '" << argv[2] << "' (" << argv[1] << "s:";
      for (const auto& n : subs) std::cerr << " " << n;
      std::cerr << ")\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  // A write past RLIMIT_FSIZE fails with EFBIG, reported as any write error,
  // instead of killing the grader mid-write (sandbox/child_process.cpp
  // restores the default for submissions).
  signal(SIGXFSZ, SIG_IGN);
  // Every command's standard output is checked once it has run (stdout_checked).
  if (const auto code = attn::grader::run_teaching_command(*teaching)) return stdout_checked(*code);
  if (const auto code = attn::grader::run_class_command(*class_commands)) return stdout_checked(*code);
  if (const auto code = attn::grader::run_check_command(*check_command)) return stdout_checked(*code);

  if (const auto code = attn::grader::run_grade_command(*grade_command)) return stdout_checked(*code);
  return 2;  // unreachable: app.require_subcommand(1)
}

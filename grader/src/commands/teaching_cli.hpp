#pragma once
// The teaching subcommands of the attnlab command line, kept apart from
// `attnlab grade`'s options:
//   attnlab mutants [--seed N] [--cases N] [--jobs N] ...   the bug-injection catalogue
//   attnlab demo [NAME]                                      lecture demonstrations
//   attnlab experiment f5 --out DIR [--d-k 16,64,256] ...     F5 run (experiment_f5.hpp)
// main.cpp adds them before parsing and runs them after.

#include <memory>
#include <optional>

#include <CLI/CLI.hpp>

namespace attn::grader {

struct TeachingCommands;

/// Adds the `mutants`, `demo` and `experiment` subcommands (and their options) to `app`.
std::shared_ptr<TeachingCommands> add_teaching_commands(CLI::App& app);

/// After app.parse: runs the teaching subcommand that was given and returns
/// its exit status, or nullopt when none was.
std::optional<int> run_teaching_command(const TeachingCommands& commands);

}  // namespace attn::grader

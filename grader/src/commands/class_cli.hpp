#pragma once
// The class subcommands of the attnlab command line:
//   attnlab merge OUT... -o MERGED      join the gradebooks of several runs (shards)
//   attnlab gradescope-zip --config FILE --exercise FN -o autograder.zip
//   attnlab reveal --out OUT --salt SALT [ID...]   the students of anonymous ids
// main.cpp adds them before parsing and runs them after, as the teaching ones.

#include <memory>
#include <optional>

#include <CLI/CLI.hpp>

namespace attn::grader {

struct ClassCommands;

/// Adds the `merge`, `gradescope-zip` and `reveal` subcommands (and their options) to `app`.
std::shared_ptr<ClassCommands> add_class_commands(CLI::App& app);

/// After app.parse: runs the class subcommand that was given and returns its
/// exit status (0 done, 1 reveal: an id is no student's, 2 usage or I/O
/// error), or nullopt when none was.
std::optional<int> run_class_command(const ClassCommands& commands);

}  // namespace attn::grader

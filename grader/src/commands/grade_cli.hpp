#pragma once
// `attnlab grade`: one submission, one student's upload (Gradescope,
// PrairieLearn), a class folder into --out, or (without FILE) the bundled
// submissions against their expected outcomes (docs/MANUAL.md).
//   attnlab grade [FILE|FOLDER...] [--exercise ID] [--answers FILE]
//                 [--config FILE] [--student] [--out DIR] [--jobs N] ...
// Exit status: 0 every property passed, 1 a property failed or a submission
// is not gradable, 2 usage or infrastructure error. main.cpp adds it before
// parsing and runs it after.

#include <memory>
#include <optional>

#include <CLI/CLI.hpp>

namespace attn::grader {

struct GradeCommand;

/// Adds the `grade` subcommand and its options to `app`.
std::shared_ptr<GradeCommand> add_grade_command(CLI::App& app);

/// After app.parse: runs `grade` if it was given and returns its exit
/// status, or nullopt when it was not.
std::optional<int> run_grade_command(const GradeCommand& command);

}  // namespace attn::grader

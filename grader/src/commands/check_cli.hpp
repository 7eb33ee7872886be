#pragma once
// `attnlab check KERNEL`: every property that applies to a kernel's
// operation, pass/fail with no points (docs/MANUAL.md,
// "Checking your own kernel").
//   attnlab check KERNEL [--op OP] [--entry NAME] [--property NAME]
//                 [--fully-forbidden error|nan|zeros] [--cases N] [--seed N]
//                 [--timeout S] [--junit FILE] [--report FILE]
// KERNEL is a Python file defining the function, a C++ file defining the F3
// interface, or an executable speaking grader/PROTOCOL.md. Exit status: 0
// every property passed, 1 one failed (or the kernel did not load), 2 usage
// or infrastructure error. main.cpp adds it before parsing and runs it after.

#include <memory>
#include <optional>

#include <CLI/CLI.hpp>

namespace attn::grader {

struct CheckCommand;

/// Adds the `check` subcommand and its options to `app`.
std::shared_ptr<CheckCommand> add_check_command(CLI::App& app);

/// After app.parse: runs `check` if it was given and returns its exit
/// status, or nullopt when it was not.
std::optional<int> run_check_command(const CheckCommand& command);

}  // namespace attn::grader

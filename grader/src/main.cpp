// attnlab: the command line. `attnlab grade FILE` grades one submission;
// `attnlab grade` grades the bundled ones against their expected outcomes.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "attn/grader/bundled.hpp"
#include "attn/grader/grade.hpp"
#include "attn/grader/paths.hpp"

namespace {

std::chrono::milliseconds seconds_to_ms(double s) {
  return std::chrono::milliseconds(static_cast<long long>(std::llround(s * 1000.0)));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"attnlab: grade scaled dot-product attention submissions (section 32.2)"};
  app.require_subcommand(1);

  auto* grade = app.add_subcommand(
      "grade",
      "Grade FILE (.py, .cpp, or an executable speaking attnlab-protocol/1). "
      "Without FILE, grade the bundled submissions and check each gets its expected outcome.\n"
      "Exit status: 0 all properties passed, 1 a property failed or the submission is not "
      "gradable, 2 usage or infrastructure error.");
  std::string file;
  std::string exercise = "F3";
  attn::prop::RunConfig run;
  run.cases = attn::prop::default_case_count();
  double timeout_s = 10.0;
  double compile_timeout_s = 120.0;
  std::optional<std::string> python;
  bool verbose = false;

  grade->add_option("FILE", file, "the submission; omit to grade the bundled submissions");
  grade->add_option("--exercise", exercise, "the exercise the submission answers")
      ->capture_default_str();
  grade->add_option("--seed", run.seed, "seed of the generated cases (replays a run)")
      ->capture_default_str();
  grade->add_option("--cases", run.cases, "cases per property")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  grade->add_option("--timeout", timeout_s, "seconds allowed per case")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  grade->add_option("--compile-timeout", compile_timeout_s, "seconds allowed per compiler run")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  grade->add_option("--python", python,
                    "Python interpreter for .py submissions (must import numpy); default: "
                    "/usr/bin/python3, then python3 on PATH");
  grade->add_flag("--verbose,-v", verbose, "bundled mode: print every full report");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  attn::grader::GradeOptions options;
  options.exercise = exercise;
  options.run = run;
  options.subject.call_timeout = seconds_to_ms(timeout_s);
  options.subject.startup_timeout =
      std::max(options.subject.startup_timeout, options.subject.call_timeout);
  options.launch.python = python;
  options.launch.compile_timeout = seconds_to_ms(compile_timeout_s);

  if (file.empty()) {
    return attn::grader::grade_bundled(attn::grader::paths::source_dir, options, verbose,
                                       std::cout);
  }
  options.file = file;
  const auto result = attn::grader::grade_file(options, std::cout);
  std::cout.flush();
  if (result.status == attn::grader::GradeResult::Status::usage_error ||
      result.status == attn::grader::GradeResult::Status::infrastructure_error) {
    std::cerr << "attnlab: " << result.message << "\n";
  }
  return result.exit_code();
}

// `attnlab mutants` and `attnlab demo`: options and dispatch (teaching_cli.hpp).
#include "commands/teaching_cli.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "commands/cli_checks.hpp"
#include "commands/demo.hpp"
#include "commands/demo_data.hpp"
#include "commands/demo_svg.hpp"
#include "commands/mutants.hpp"
#include "attn/grader/paths.hpp"

namespace attn::grader {

struct TeachingCommands {
  CLI::App* mutants = nullptr;
  CLI::App* demo = nullptr;
  // attnlab mutants
  std::uint64_t seed = 20261129;
  int cases = attn::prop::default_case_count();
  int jobs = int(std::max(1u, std::thread::hardware_concurrency()));
  double timeout_s = 10.0;
  std::optional<std::string> python;
  std::optional<std::string> catalogue;
  bool keys = false;
  bool no_solutions = false;
  bool verbose = false;
  // attnlab demo
  std::string demo_name;
  std::string demo_format = "text";
  std::optional<std::string> demo_svg;
  DemoInputs demo_inputs;
  bool demo_custom = false;  ///< an input option was given
  std::vector<CLI::Option*> demo_input_options;
};

std::shared_ptr<TeachingCommands> add_teaching_commands(CLI::App& app) {
  namespace check = cli;
  namespace bounds = attn::grader::bounds;
  auto t = std::make_shared<TeachingCommands>();
  t->mutants = app.add_subcommand(
      "mutants",
      "Grade the bug-injection catalogue (exercises/mutants/: one named misconception per "
      "file, in an exercise's own interface) and "
      "the model solutions; print the kill matrix (mutant x property), each mutant's first "
      "catching property with the grader's hint and the size of its shrunk counterexample, "
      "and the distribution of those sizes.\n"
      "Exit status: 0 every mutant caught (also by its declared property), every solution "
      "clean and the median shrunk counterexample at most 3 in every dimension, 1 otherwise, 2 usage or infrastructure error.");
  t->mutants->add_option("--seed", t->seed, "seed of the generated cases")
      ->capture_default_str()
      ->check(check::whole_number(bounds::kSeed));
  t->mutants->add_option("--cases", t->cases, "cases per property")
      ->capture_default_str()
      ->check(check::whole_number(bounds::kCases));
  t->mutants->add_option("--jobs,-j", t->jobs,
                         "gradings at once, each in a grader process of its own (default: the cores)")
      ->check(check::whole_number(1, 4096));
  t->mutants->add_option("--timeout", t->timeout_s, "seconds allowed per case")
      ->capture_default_str()
      ->check(check::seconds(bounds::kTimeoutSeconds, "10"));
  t->mutants->add_option("--python", t->python,
                         "Python interpreter for the .py mutants (must import numpy)");
  t->mutants->add_option("--catalogue", t->catalogue,
                         "the catalogue folder (default: exercises/mutants of the checkout)");
  t->mutants->add_flag("--keys", t->keys,
                       "check each mutant's diagnosis against the misconception key its header "
                       "names (its 'key:' line)");
  t->mutants->add_flag("--no-solutions", t->no_solutions, "grade the mutants only");
  t->mutants->add_flag("--verbose,-v", t->verbose,
                       "print the full report of every unexpected outcome");

  t->demo = app.add_subcommand(
      "demo",
      "Teaching demonstrations for a lecture: `attnlab demo` lists them, `attnlab demo "
      "masking` shows why masking after the softmax fails (F4, Lemma 2).");
  t->demo->add_option("NAME", t->demo_name, "the demonstration (omit for the list)");
  t->demo->add_option("--format", t->demo_format,
                      "text, or the numbers as csv or json (masking, scaling)")
      ->check(CLI::IsMember({"text", "csv", "json"}))
      ->capture_default_str();
  t->demo->add_option("--svg", t->demo_svg,
                      "also draw the weights as an SVG heatmap (masking, scaling): forbidden "
                      "cells crossed, row sums beside");
  t->demo_input_options = {
      t->demo->add_option("--size", t->demo_inputs.size, "T_q = T_v of the random example")
          ->capture_default_str()
          ->check(check::whole_number(1, 64)),
      t->demo->add_option("--mask", t->demo_inputs.mask, "the mask of the masking demonstration")
          ->capture_default_str()
          ->check(CLI::IsMember({"causal", "padding", "none"})),
      t->demo->add_option("--d-k", t->demo_inputs.d_k, "d_k of the random Q and K")
          ->capture_default_str()
          ->check(check::whole_number(1, 4096)),
      t->demo->add_option("--seed", t->demo_inputs.seed, "seed of the random Q and K")
          ->capture_default_str()
          ->check(check::whole_number(0))};
  return t;
}

std::optional<int> run_teaching_command(const TeachingCommands& t) {
  if (t.demo && t.demo->parsed()) {
    if (t.demo_name.empty()) {
      list_demos(std::cout);
      return 0;
    }
    bool custom = t.demo_format != "text" || t.demo_svg.has_value();
    for (const CLI::Option* o : t.demo_input_options) custom = custom || o->count() > 0;
    const bool takes_inputs = t.demo_name == "masking" || t.demo_name == "scaling";
    if (custom && !takes_inputs) {
      std::cerr << "attnlab: only the masking and scaling demonstrations take --format, --svg, "
                   "--size, --mask, --d-k and --seed\n";
      return 2;
    }
    try {
      if (!takes_inputs) return run_demo(t.demo_name, std::cout);
      const DemoData data = demo_data(t.demo_name, t.demo_inputs);
      if (t.demo_format != "text") {
        write_demo(std::cout, data, t.demo_format);
      } else {
        // The text's own example first (unless inputs were given), then the random one.
        bool inputs_given = false;
        for (const CLI::Option* o : t.demo_input_options) inputs_given = inputs_given || o->count() > 0;
        if (!inputs_given) {
          run_demo(t.demo_name, std::cout);
          std::cout << "\n";
        }
        write_demo(std::cout, data, "text");
      }
      if (t.demo_svg) {
        write_demo_svg(*t.demo_svg, data);
        std::cerr << "attnlab: wrote " << *t.demo_svg << "\n";
      }
    } catch (const std::exception& e) {
      std::cerr << "attnlab: " << e.what() << "\n";
      return 2;
    }
    return 0;
  }
  if (t.mutants && t.mutants->parsed()) {
    MutantsOptions o;
    o.source_dir = paths::source_dir;
    if (t.catalogue) o.catalogue_dir = *t.catalogue;
    o.check_keys = t.keys;
    o.jobs = t.jobs;
    o.solutions = !t.no_solutions;
    o.verbose = t.verbose;
    o.grade.run.seed = t.seed;
    o.grade.run.cases = t.cases;
    o.grade.subject.call_timeout =
        std::chrono::milliseconds(std::max(1LL, std::llround(t.timeout_s * 1000.0)));
    o.grade.subject.startup_timeout =
        std::max(o.grade.subject.startup_timeout, o.grade.subject.call_timeout);
    o.grade.submission_timeout = std::chrono::minutes(15);
    o.grade.launch.python = t.python;
    const int code = run_mutants(o, std::cout);
    std::cout.flush();
    return code;
  }
  return std::nullopt;
}

}  // namespace attn::grader

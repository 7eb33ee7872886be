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
#include "commands/demo_cli.hpp"
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
  DemoCommand demo_command;
  std::vector<CLI::Option*> demo_input_options;
  CLI::Option* demo_size = nullptr;
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
      "masking` shows why masking after the softmax fails (F4, Lemma 2), `attnlab demo "
      "--html DIR` writes one page with every figure.");
  DemoCommand& c = t->demo_command;
  t->demo->add_option("NAME", c.name, "the demonstration (omit for the list)");
  t->demo->add_option("--format", c.format,
                      "text, or the numbers as csv or json (masking, scaling, shift, weights, "
                      "scaling-sweep)")
      ->check(CLI::IsMember({"text", "csv", "json"}))
      ->capture_default_str();
  t->demo->add_option("--svg", c.svg,
                      "also draw the demonstration as an SVG figure (heatmaps with row and "
                      "column indices, forbidden cells crossed, row sums beside; the sweep's "
                      "curves with their spread)");
  t->demo->add_option("--html", c.html,
                      "write DIR/index.html: one self-contained page with every figure, its "
                      "caption and command, and controls choosing among precomputed inputs");
  t->demo->add_option("--font-scale", c.style.font_scale,
                      "multiply the figures' font sizes (1.5 or 2 for a projector)")
      ->capture_default_str()
      ->check(CLI::Range(0.5, 4.0));
  t->demo_size = t->demo->add_option("--size", c.inputs.size,
                                     "T_q = T_v of the random example (the sweep's default: 16)")
                     ->capture_default_str()
                     ->check(check::whole_number(1, 64));
  t->demo_input_options = {
      t->demo_size,
      t->demo->add_option("--mask", c.inputs.mask, "the mask (masking, shift, weights)")
          ->capture_default_str()
          ->check(CLI::IsMember({"causal", "padding", "none"})),
      t->demo->add_option("--d-k", c.inputs.d_k, "d_k of the random Q and K")
          ->capture_default_str()
          ->check(check::whole_number(1, 4096)),
      t->demo->add_option("--seed", c.inputs.seed, "seed of the random Q and K (the sweep's first)")
          ->capture_default_str()
          ->check(check::whole_number(0)),
      t->demo->add_option("--seeds", c.seeds, "seeds per d_k of the scaling-sweep")
          ->capture_default_str()
          ->check(check::whole_number(1, 100)),
      t->demo->add_option_function<std::string>(
                 "--example", [dc = &t->demo_command](const std::string& v) { dc->inputs.text_example = v == "text"; },
                 "random (the default) or text: the text's own example (the two-token example "
                 "of 32.2.6 for masking)")
          ->check(CLI::IsMember({"random", "text"}))};
  return t;
}

std::optional<int> run_teaching_command(const TeachingCommands& t) {
  if (t.demo && t.demo->parsed()) {
    DemoCommand c = t.demo_command;
    for (const CLI::Option* o : t.demo_input_options)
      if (o->count() > 0) c.inputs_given.push_back(o->get_name());
    c.size_given = t.demo_size->count() > 0;
    return run_demo_command(c);
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

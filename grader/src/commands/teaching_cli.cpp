// `attnlab mutants`, `attnlab demo` and `attnlab experiment f5`: options and
// dispatch (teaching_cli.hpp).
#include "commands/teaching_cli.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "commands/cli_checks.hpp"
#include "commands/demo_cli.hpp"
#include "commands/experiment_f5.hpp"
#include "commands/mutants.hpp"
#include "submission/compiler_cache.hpp"
#include "attn/grader/paths.hpp"
#include "attn/prop/catalog.hpp"

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
  bool no_cache = false;
  // attnlab demo
  DemoCommand demo_command;
  std::vector<CLI::Option*> demo_input_options;
  CLI::Option* demo_name = nullptr;
  CLI::Option* demo_size = nullptr;
  CLI::Option* demo_font_scale = nullptr;
  // attnlab experiment f5
  CLI::App* experiment = nullptr;
  CLI::App* f5 = nullptr;
  F5Settings f5_settings;
  std::string f5_out;
  SvgStyle f5_style;
};

namespace {

void add_experiment_command(CLI::App& app, TeachingCommands& t) {
  namespace check = cli;
  t.experiment = app.add_subcommand(
      "experiment", "Experiments that train a small model on the library: `attnlab experiment f5`.");
  t.experiment->require_subcommand(1);
  t.f5 = t.experiment->add_subcommand(
      "f5",
      "Exercise F5 run (sections 14.3, 32.2.8): train a one-layer attention model on associative "
      "recall with the logits divided by sqrt(d_k) and without, at each d_k and seed, and write "
      "the learning curves and final accuracies (CSV, SVG) and a report saying at each d_k whether "
      "the scaled model trains faster or better (a paired sign test over the seeds).\n"
      "Exit status: 0 the experiment ran (whatever it shows), 2 usage error or a file that cannot "
      "be written.");
  F5Settings& f = t.f5_settings;
  t.f5->add_option("--out", t.f5_out, "the folder for curves.csv, curves_summary.csv, final.csv, "
                                      "curves.svg, final.svg and report.txt (made if missing)")
      ->required();
  // Split here, not by CLI11's delimiter, which drops an empty item ("16,"):
  // a mistyped list would run shorter without saying so.
  const auto items = [](const std::string& list) {
    std::vector<std::string> out;
    for (std::size_t start = 0;;) {
      const std::size_t end = list.find(',', start);
      out.push_back(list.substr(start, end == std::string::npos ? std::string::npos : end - start));
      if (end == std::string::npos) return out;
      start = end + 1;
    }
  };
  t.f5->add_option_function<std::string>(
          "--d-k",
          [&f, items](const std::string& list) {
            f.d_k.clear();
            for (const std::string& item : items(list)) f.d_k.push_back(std::stoi(item));
          },
          "the d_k values, comma-separated (1 to 8 values, each 1 to 1024)")
      ->default_str("16,64,256")
      ->check(CLI::Validator(
          [items](std::string& list) -> std::string {
            CLI::Validator each = check::whole_number(1, 1024);
            for (std::string item : items(list)) {
              if (item.empty()) return "has an empty item (a comma too many?): give the values as 16,64,256";
              if (std::string why = each(item); !why.empty()) return why;
            }
            return std::string();
          },
          "1 to 1024 each"));
  t.f5->add_option("--seeds", f.seeds, "seeds per d_k and arm")
      ->capture_default_str()
      ->check(check::whole_number(2, 100));
  t.f5->add_option("--seed", f.seed, "the first seed")->capture_default_str()->check(check::whole_number(0));
  t.f5->add_option("--steps", f.steps, "training steps per run")
      ->capture_default_str()
      ->check(check::whole_number(10, 100000));
  t.f5->add_option("--batch", f.batch, "examples per step")
      ->capture_default_str()
      ->check(check::whole_number(1, 256));
  t.f5->add_option("--lr", f.learning_rate, "the learning rate, the same for both arms")
      ->capture_default_str()
      ->check(check::real_number(1e-6, 10.0));
  t.f5->add_option_function<std::string>(
          "--optimizer",
          [&f](const std::string& v) {
            f.optimizer = v == "sgd" ? attn::exp::Optimizer::sgd : attn::exp::Optimizer::adam;
          },
          "adam (the default) or sgd (plain gradient descent, whose steps shrink with the gradient)")
      ->check(CLI::IsMember({"adam", "sgd"}));
  t.f5->add_option("--jobs,-j", f.jobs, "runs at once, one thread each")
      ->capture_default_str()
      ->check(check::whole_number(1, 64));
  t.f5->add_option("--font-scale", t.f5_style.font_scale,
                   "multiply the figures' font sizes (1.5 or 2 for a projector)")
      ->capture_default_str()
      ->check(check::real_number(0.5, 4.0));
}

int run_experiment_f5(const TeachingCommands& t) {
  F5Result r;
  try {
    check_f5_settings(t.f5_settings);
    // The folder first, so that an --out that cannot be made fails before minutes of training.
    std::error_code ec;
    std::filesystem::create_directories(t.f5_out, ec);
    if (ec || !std::filesystem::is_directory(t.f5_out)) {
      std::cerr << "attnlab experiment f5: cannot make the folder " << t.f5_out
                << (ec ? ": " + ec.message() : ": a file of that name exists") << "\n";
      return 2;
    }
    // And one that cannot be written to (a read-only folder) as well: a file made and removed.
    const std::filesystem::path probe =
        std::filesystem::path(t.f5_out) / (".attnlab-write-test-" + std::to_string(::getpid()));
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
      std::cerr << "attnlab experiment f5: cannot write into the folder " << t.f5_out << ": "
                << std::strerror(errno) << "\n";
      return 2;
    }
    ::close(fd);
    ::unlink(probe.c_str());
    std::cerr << "attnlab experiment f5: " << t.f5_settings.d_k.size() * 2 * std::size_t(t.f5_settings.seeds)
              << " runs of " << t.f5_settings.steps << " steps on " << t.f5_settings.jobs << " thread"
              << (t.f5_settings.jobs == 1 ? "" : "s") << "\n";
    r = run_f5(t.f5_settings, std::cerr);
  } catch (const std::invalid_argument& e) {
    std::cerr << "attnlab experiment f5: " << e.what() << "\n";
    return 2;
  }
  try {
    write_f5_outputs(r, t.f5_out, t.f5_style);
  } catch (const std::exception& e) {
    std::cerr << "attnlab experiment f5: " << e.what() << "\n";
    return 2;
  }
  std::cout << f5_report(r) << "\nWritten to " << t.f5_out
            << ": curves.csv, curves_summary.csv, final.csv, curves.svg, final.svg, report.txt\n";
  return 0;
}

}  // namespace

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
  t->mutants->add_flag("--no-cache", t->no_cache,
                       "compile the C++ mutants and solutions without the compiler cache (also "
                       "ATTNLAB_NO_CACHE=1; its folder: ATTNLAB_CACHE_DIR; docs/MANUAL.md, 'The "
                       "compiler cache')");

  t->demo = app.add_subcommand(
      "demo",
      "Teaching demonstrations for a lecture: `attnlab demo` lists them, `attnlab demo "
      "masking` shows why masking after the softmax fails (F4, Lemma 2), `attnlab demo "
      "--html DIR` writes one page with every figure.");
  DemoCommand& c = t->demo_command;
  t->demo_name = t->demo->add_option("NAME", c.name, "the demonstration (omit for the list)");
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
  t->demo_font_scale = t->demo->add_option("--font-scale", c.style.font_scale,
                      "multiply the figures' font sizes (1.5 or 2 for a projector)")
      ->capture_default_str()
      ->check(check::real_number(0.5, 4.0));
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
  add_experiment_command(app, *t);
  return t;
}

std::optional<int> run_teaching_command(const TeachingCommands& t) {
  if (t.demo && t.demo->parsed()) {
    DemoCommand c = t.demo_command;
    for (const CLI::Option* o : t.demo_input_options)
      if (o->count() > 0) c.inputs_given.push_back(o->get_name());
    c.name_given = t.demo_name->count() > 0;
    c.size_given = t.demo_size->count() > 0;
    c.font_scale_given = t.demo_font_scale->count() > 0;
    return run_demo_command(c);
  }
  if (t.f5 && t.f5->parsed()) return run_experiment_f5(t);
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
    o.grade.launch.compiler_cache = compiler_cache_from_environment(t.no_cache);
    const int code = run_mutants(o, std::cout);
    std::cout.flush();
    return code;
  }
  return std::nullopt;
}

}  // namespace attn::grader

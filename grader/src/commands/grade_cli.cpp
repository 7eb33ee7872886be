// `attnlab grade`: from the options to the graded submissions (see
// grade_cli.hpp): the teacher configuration read first, the options it
// completes, the paths checked, the sandbox, then the bundled submissions,
// a class folder, or one submission (or one student's upload).
#include "commands/grade_cli.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "exercises/registry.hpp"
#include "attn/grader/paths.hpp"
#include "commands/bundled.hpp"
#include "commands/cli_checks.hpp"
#include "commands/colour.hpp"
#include "commands/precision_options.hpp"
#include "exercises/answers.hpp"
#include "exercises/exercise.hpp"
#include "grading/batch.hpp"
#include "grading/class_folder.hpp"
#include "grading/gradebook.hpp"
#include "grading/grade.hpp"
#include "grading/number_bounds.hpp"
#include "grading/scoring_rules.hpp"
#include "grading/teacher_config.hpp"
#include "grading/upload.hpp"
#include "report/prairielearn_json.hpp"
#include "report/results_json.hpp"
#include "sandbox/file_problem.hpp"
#include "sandbox/sandbox.hpp"
#include "submission/submission.hpp"
#include "attn/prop/catalog.hpp"

namespace attn::grader {

namespace fs = std::filesystem;
namespace check = cli;

namespace {

/// Whole milliseconds; a positive time shorter than half a millisecond is
/// 1 ms (not 0, which would mean "no time" or "no limit"), with a note.
std::chrono::milliseconds seconds_to_ms(double s, const std::string& what) {
  long long ms = static_cast<long long>(std::llround(s * 1000.0));
  if (s > 0 && ms == 0) {
    std::cerr << "attnlab: note: " << what << " of " << s
              << " s is below the grader's resolution of 1 ms; using 1 ms\n";
    ms = 1;
  }
  return std::chrono::milliseconds(ms);
}

/// Cases of a --student run without a configuration that says otherwise.
constexpr int kStudentCases = 20;

/// The exercise every submission is graded as: --exercise, else the
/// configuration's; empty when each is recognised.
std::string fixed_exercise(const GradeOptions& options) {
  if (!options.exercise.empty()) return options.exercise;
  if (options.config && options.config->exercise) return *options.config->exercise;
  return {};
}

/// What decides a grade in a class run (gradebook.hpp "settings"): seed,
/// cases, the fixed exercise, the property, the mode, the limits, the
/// precision asked for, and the teacher configuration's content.
nlohmann::ordered_json grading_settings(const GradeOptions& o, const PrecisionChoice& precision,
                                        const std::optional<std::string>& config_file,
                                        const std::vector<std::string>& exercises) {
  nlohmann::ordered_json config = nullptr;
  if (config_file) {
    std::ifstream in(*config_file);
    config = nlohmann::ordered_json::parse(in, nullptr, false);
    // The salt of anonymous ids and the signing key decide no grade, and
    // stay out of summary.json (secrets).
    if (config.is_object()) {
      config.erase("anonymise_salt");
      config.erase("signing_key");
    }
  }
  nlohmann::ordered_json settings = {{"seed", o.run.seed},
          {"cases", o.run.cases},
          {"exercise", fixed_exercise(o)},
          {"property", o.only_property},
          {"mode", o.mode},
          {"timeout_ms", o.subject.call_timeout.count()},
          {"submission_timeout_ms", o.submission_timeout.count()},
          {"compile_timeout_ms", o.launch.compile_timeout.count()},
          {"memory_bytes", o.launch.limits.address_space_bytes},
          {"file_size_bytes", o.launch.limits.file_size_bytes},
          {"precision", precision.precision},
          {"accumulate", precision.accumulate},
          {"configuration", config}};
  // --exercise F2,F3: the exercises graded (the configuration's own are in "configuration").
  if (!exercises.empty()) settings["exercises"] = exercises;
  return settings;
}
bool is_folder(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

}  // namespace

/// What execute()'s stages build from the parsed command: the configuration,
/// the options a grade runs with, and which kind of FILE it was given.
struct GradePlan {
  std::shared_ptr<const TeacherConfig> config;
  GradeOptions options;
  bool upload = false;  ///< one student's upload folder (Gradescope, PrairieLearn)
  bool batch = false;   ///< several files or a class folder, into --out
  /// --exercise naming several (F2,F3), as known ids; empty: one or none.
  std::vector<std::string> exercises;
};

/// The options of `attnlab grade` as parsed (CLI11 writes them; execute()
/// only reads them and builds a GradePlan).
struct GradeCommand {
  CLI::App* grade = nullptr;
  std::vector<std::string> files;
  std::optional<std::string> answers;
  attn::prop::RunConfig run;
  double timeout_s = 10.0;
  double compile_timeout_s = 120.0;
  double submission_timeout_s = 900.0;
  double startup_timeout_s = 30.0;
  std::uint64_t memory_mib = bounds::kDefaultMemoryMib;
  std::uint64_t file_size_mib = 64;
  std::uint64_t max_processes = 64;
  std::optional<std::string> python;
  bool verbose = false;
  std::optional<std::string> config_file;
  bool student = false;
  std::string visibility;
  std::optional<std::string> results_json;
  std::optional<std::string> junit;
  std::optional<std::string> report_file;
  std::optional<std::string> out_dir;
  int jobs = std::max(1u, std::thread::hardware_concurrency());
  bool no_sandbox = false;
  bool no_cache = false;
  std::uint32_t sandbox_uid = 64100;
  PrecisionChoice precision;
  std::optional<std::string> prairielearn_json;
  std::string only_property;
  std::vector<std::string> only_students;
  std::string shard;
  std::string anonymise_salt;
  bool restart = false;
  std::string exercise;  ///< empty: recognised from FILE
  // Options whose count() decides whether the configuration's value applies.
  CLI::Option* seed_opt = nullptr;
  CLI::Option* cases_opt = nullptr;
  CLI::Option* timeout_opt = nullptr;
  CLI::Option* compile_opt = nullptr;
  CLI::Option* submission_opt = nullptr;
  CLI::Option* memory_opt = nullptr;
  CLI::Option* file_size_opt = nullptr;
  CLI::Option* processes_opt = nullptr;

  void add_options(CLI::App& app);
  void add_output_options();
  int execute() const;

 private:
  std::optional<int> read_config(GradePlan& plan) const;
  std::optional<int> make_options(GradePlan& plan) const;
  std::optional<int> check_paths(GradePlan& plan) const;
  std::optional<int> check_exercises(GradePlan& plan) const;
  void make_sandbox(GradePlan& plan) const;
  int grade_class(const GradePlan& plan) const;
  int grade_one(GradePlan& plan) const;
};

void GradeCommand::add_options(CLI::App& app) {
  grade = app.add_subcommand(
      "grade",
      "Grade FILE (.py, .cpp, an answers .json, or an executable speaking attnlab-protocol/1). "
      "Several FILEs or a FOLDER: grade each in parallel, reports into --out, with "
      "summary.csv and summary.json. Without FILE, grade the bundled submissions and check "
      "each gets its expected outcome.\n"
      "Exit status: 0 all properties passed, 1 a property failed or a submission is not "
      "gradable, 2 usage or infrastructure error.");
  add_precision_options(*grade, precision);

  grade->add_option("FILE", files,
                    "the submission(s), or folders of submissions; omit to grade the bundled "
                    "submissions");
  grade->add_option(
      "--exercise", exercise,
      "the exercise FILE answers (" + graded_exercises_text() + "); "
      "default: recognised from FILE "
      "(the function, namespace or header it defines, or an answers file's "
      "\"exercise\")");
  grade->add_option("--answers", answers,
                    "the answers file of " + answers_exercises_text() +
                        " (JSON, see exercises/F2/README.md), graded "
                    "with FILE; a .json FILE is graded alone (never read through a symbolic link)");
  // Numbers are checked as text before CLI11 converts them (cli_checks.hpp):
  // nothing wraps ("--seed -1") and every message says what is expected.
  // The bounds are the configuration's too (grading/number_bounds.hpp).
  seed_opt = grade->add_option("--seed", run.seed, "seed of the generated cases (replays a run)")
                 ->capture_default_str()
                 ->check(check::whole_number(bounds::kSeed));
  cases_opt = grade->add_option("--cases", run.cases, "cases per property")
                  ->capture_default_str()
                  ->check(check::whole_number(bounds::kCases));
  timeout_opt = grade->add_option("--timeout", timeout_s, "seconds allowed per case")
                    ->capture_default_str()
                    ->check(check::seconds(bounds::kTimeoutSeconds, "2.5"));
  compile_opt =
      grade->add_option("--compile-timeout", compile_timeout_s, "seconds allowed per compiler run")
          ->capture_default_str()
          ->check(check::seconds(bounds::kTimeoutSeconds, "60"));
  grade
      ->add_option("--startup-timeout", startup_timeout_s,
                   "seconds allowed for a submission to load (import the file or start the "
                   "program) and say hello to the grader; at least --timeout")
      ->capture_default_str()
      ->check(check::seconds(bounds::kTimeoutSeconds, "5"));
  submission_opt =
      grade
          ->add_option("--submission-timeout", submission_timeout_s,
                       "seconds allowed for all the cases of one submission (0: no limit)")
          ->capture_default_str()
          ->check(check::seconds(bounds::kBudgetSeconds, "600"));
  memory_opt = grade
                   ->add_option("--memory", memory_mib,
                                "MiB of address space per submission process (RLIMIT_AS)")
                   ->capture_default_str()
                   ->check(check::whole_number(bounds::kMemoryMib));
  file_size_opt = grade
                      ->add_option("--file-size", file_size_mib,
                                   "MiB a submission may write per file (RLIMIT_FSIZE)")
                      ->capture_default_str()
                      ->check(check::whole_number(bounds::kFileSizeMib));
  processes_opt =
      grade
          ->add_option("--max-processes", max_processes,
                       "processes and threads a submission may have at once (RLIMIT_NPROC; "
                       "0: no limit; see docs/MANUAL.md, 'Limits and sandbox')")
          ->capture_default_str()
          ->check(check::whole_number(bounds::kMaxProcesses));
  grade->add_option("--python", python,
                    "Python interpreter for .py submissions (must import numpy); default: "
                    "/usr/bin/python3, then python3 on PATH");
  grade->add_flag("--verbose,-v", verbose,
                  "the report's full header (runtime, timeout, limits, sandbox); bundled mode: "
                  "print every full report");
  grade->add_option("--config", config_file,
                    "teacher configuration (JSON): seed and cases of the hidden tests, points and "
                    "visibility overrides, limits; never visible to a submission");
  grade->add_flag("--student", student,
                  "a student's check of FILE: the text's examples and a quick pass of " +
                      std::to_string(kStudentCases) +
                      " cases per property (or the configuration's student_cases)");
  grade
      ->add_option("--visibility", visibility,
                   "results.json visibility of the generated tests: visible, hidden, "
                   "after_due_date, after_published (default; the text's examples are visible)")
      ->check(CLI::IsMember({"visible", "hidden", "after_due_date", "after_published"}));
  add_output_options();
}

/// The report files, the class run's options (--out, --students, --shard,
/// --jobs) and the sandbox's.
void GradeCommand::add_output_options() {
  grade->add_option("--results-json", results_json,
                    "write Gradescope's results.json for the submission to this file");
  grade->add_option("--junit", junit,
                    "write JUnit XML (one testsuite per submission) to this file");
  grade->add_option("--report", report_file, "also write the text report to this file");
  grade->add_option("--prairielearn-json", prairielearn_json,
                    "write PrairieLearn's external-grader results.json (score 0-1, tests with "
                    "name, points, max_points, message, output) to this file");
  grade->add_option("--property", only_property,
                    "grade this property only (e.g. row_stochastic; the report lists them), for a "
                    "quick retry of the one that failed");
  grade
      ->add_option("--students", only_students,
                   "grade only these students of the class folder (names as in summary.csv, "
                   "comma-separated; a name with a comma: --only-student); with --out, their rows are "
                   "replaced and the others kept")
      ->delimiter(',');
  grade
      ->add_option("--only-student", only_students,
                   "grade only this student (repeatable; the name whole, as in summary.csv's "
                   "student column, commas and quotes included)")
      ->allow_extra_args(false);
  grade
      ->add_option("--shard", shard,
                   "K/N: grade only the students of shard K of N (a deterministic split by "
                   "student name; join the outputs with attnlab merge)")
      ->check(check::shard());
  grade->add_option("-o,--out", out_dir,
                    "folder for the reports when grading several submissions (default: "
                    "attnlab-reports): the gradebook summary.csv, summary.json, summary.txt, "
                    "updated as each student is graded, and students/<name>.txt, "
                    ".results.json, .junit.xml. One attnlab writes to it at a time. A run that "
                    "was stopped (kill, power cut) is resumed by the same command: the students "
                    "it finished keep their rows, the others are graded");
  grade->add_option("--anonymise-salt", anonymise_salt,
                    "with --out: also write summary-anonymous.csv, each student under an id keyed "
                    "by this secret of at least " + std::to_string(bounds::kMinSaltChars) +
                    " characters (default: the configuration's anonymise_salt); attnlab reveal "
                    "gives the students back")
      ->check(CLI::Validator(
          [](std::string& salt) {
            // The configuration's rule (teacher_config.cpp): one rule for both.
            return salt.size() < bounds::kMinSaltChars
                       ? "must be at least " + std::to_string(bounds::kMinSaltChars) +
                             " characters, as the configuration's anonymise_salt (a secret of "
                             "your own; it keys summary-anonymous.csv's ids)"
                       : std::string();
          },
          "SALT"));
  grade->add_flag("--restart", restart,
                  "with --out: grade every student given even if the folder holds an "
                  "interrupted run with the same settings (which is otherwise resumed)");
  grade->add_option("--jobs,-j", jobs, "submissions graded at once (default: the cores)")
      ->check(check::whole_number(1, 4096));
  grade->add_flag("--no-sandbox", no_sandbox,
                  "run submissions without bubblewrap, under the resource limits alone "
                  "(also ATTNLAB_NO_SANDBOX=1)");
  grade->add_flag("--no-cache", no_cache,
                  "compile C++ submissions without the compiler cache (also ATTNLAB_NO_CACHE=1; "
                  "its folder: ATTNLAB_CACHE_DIR; docs/MANUAL.md, 'The compiler cache')");
  grade
      ->add_option("--sandbox-uid", sandbox_uid,
                   "as root, the sandboxed submission of job slot k runs as this uid + k "
                   "(the next free one up to this uid + 1023 when another grade holds it)")
      ->capture_default_str()
      ->check(check::whole_number(1, 4000000000u));
}

int GradeCommand::execute() const {
  GradePlan plan;
  if (const auto code = read_config(plan)) return *code;
  if (const auto code = make_options(plan)) return *code;
  if (const auto code = check_paths(plan)) return *code;
  if (const auto code = check_exercises(plan)) return *code;
  make_sandbox(plan);
  if (files.empty()) {
    return grade_bundled(paths::source_dir, plan.options, verbose, std::cout);
  }

  if (plan.batch) return grade_class(plan);
  return grade_one(plan);
}

/// The teacher configuration, read before any submission starts.
std::optional<int> GradeCommand::read_config(GradePlan& plan) const {
  if (config_file) {
    try {
      plan.config = std::make_shared<const TeacherConfig>(read_teacher_config(*config_file));
    } catch (const ConfigError& e) {
      std::cerr << "attnlab: " << e.what() << "\n";
      return 2;
    }
  }

  return std::nullopt;
}

/// GradeOptions from the command line, else the configuration, else the
/// defaults; an unknown --property is a usage error.
std::optional<int> GradeCommand::make_options(GradePlan& plan) const {
  const auto& config = plan.config;
  GradeOptions& options = plan.options;
  // The command line's values, overridden below where the configuration
  // gives one and the option was not given.
  std::string exercise = this->exercise;
  attn::prop::RunConfig run = this->run;
  double timeout_s = this->timeout_s;
  double compile_timeout_s = this->compile_timeout_s;
  double submission_timeout_s = this->submission_timeout_s;
  std::uint64_t memory_mib = this->memory_mib;
  std::uint64_t file_size_mib = this->file_size_mib;
  // Exercise ids are case-insensitive, as the `# exercise:` line is.
  for (char& ch : exercise) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  options.exercise = exercise;
  if (answers) options.answers = *answers;
  // Seed and cases: the command line, else the configuration, else the defaults.
  // (not for --student: the configuration's seed is the hidden tests')
  if (config && !seed_opt->count() && config->seed && !student) run.seed = *config->seed;
  if (!cases_opt->count()) {
    if (student)
      run.cases = config && config->student_cases ? *config->student_cases : kStudentCases;
    else if (config && config->cases)
      run.cases = *config->cases;
  }
  if (config && !student && (config->seed || config->cases) &&
      !(seed_opt->count() && cases_opt->count()))
    options.settings_from = "the teacher configuration";
  if (config) {
    const auto& l = config->limits;
    if (l.timeout_s && !timeout_opt->count()) timeout_s = *l.timeout_s;
    if (l.compile_timeout_s && !compile_opt->count()) compile_timeout_s = *l.compile_timeout_s;
    if (l.submission_timeout_s && !submission_opt->count())
      submission_timeout_s = *l.submission_timeout_s;
    if (l.memory_mib && !memory_opt->count()) memory_mib = *l.memory_mib;
    if (l.file_size_mib && !file_size_opt->count()) file_size_mib = *l.file_size_mib;
  }
  if (student) {
    options.mode = "student: the text's examples and a quick pass of " + std::to_string(run.cases) +
                   " cases per property; a check, not the grade";
  }
  options.run = run;
  options.config = config;
  if (!only_property.empty()) {
    std::vector<std::string> known = {kAnswersItem};
    for (const auto& ex : graded_exercise_ids())
      for (const auto& p : exercise_properties(ex))
        if (std::find(known.begin(), known.end(), p.id) == known.end()) known.push_back(p.id);
    if (std::find(known.begin(), known.end(), only_property) == known.end()) {
      const std::string c = check::closest(only_property, known);
      std::cerr << "attnlab: no property " << only_property
                << (c.empty() ? "" : "; did you mean " + c + "?") << " (properties:";
      for (const auto& k : known) std::cerr << " " << k;
      std::cerr << ")\n";
      return 2;
    }
    options.only_property = only_property;
  }
  options.generated_visibility = visibility;
  options.subject.call_timeout = seconds_to_ms(timeout_s, "--timeout");
  options.subject.precision = precision.request();
  options.subject.startup_timeout = std::max(
      seconds_to_ms(startup_timeout_s, "--startup-timeout"), options.subject.call_timeout);
  options.submission_timeout = seconds_to_ms(submission_timeout_s, "--submission-timeout");
  options.launch.python = python;
  options.launch.compile_timeout = seconds_to_ms(compile_timeout_s, "--compile-timeout");
  options.launch.compiler_cache = compiler_cache_from_environment(no_cache);
  options.launch.limits.address_space_bytes = memory_mib << 20;
  options.launch.limits.file_size_bytes = file_size_mib << 20;

  return std::nullopt;
}

/// What the FILEs are (one, an upload, a class) and whether the options go
/// with them.
std::optional<int> GradeCommand::check_paths(GradePlan& plan) const {
  bool& upload = plan.upload;
  bool& batch = plan.batch;
  if (student && files.empty()) {
    std::cerr << "attnlab: --student checks your own file: attnlab grade --student "
                 "my_attention.py (without FILE, attnlab grades its bundled submissions)\n";
    return 2;
  }
  // A path the system cannot take (PATH_MAX) is said as such, not as a missing file.
  std::vector<std::pair<std::string, std::string>> named;
  for (const auto& f : files) named.push_back({f, "file"});
  if (answers) named.push_back({*answers, "answers file"});
  for (const auto& [path, what] : named)
    if (const auto problem = path_too_long(path, what)) {
      std::cerr << "attnlab: " << *problem << "\n";
      return 2;
    }
  // One student's upload (Gradescope, PrairieLearn): a single folder with a
  // per-submission report file; its entry is chosen as in a class folder.
  upload = files.size() == 1 && is_folder(files.front()) && !out_dir &&
           (results_json || prairielearn_json || report_file);
  batch = !upload && (files.size() > 1 || out_dir.has_value());
  for (const auto& f : files) batch = batch || (!upload && is_folder(f));
  if (batch && (results_json || answers || report_file || prairielearn_json)) {
    std::cerr << "attnlab: --results-json, --answers and --report go with one FILE; when "
                 "grading several, every report goes to --out\n";
    return 2;
  }

  return std::nullopt;
}

/// --exercise: each id it names must be an exercise attnlab grades (exit 2
/// naming the one that is not). Several (F2,F3, as gradescope-zip takes
/// them) go with a class folder or an upload and mean what they mean there:
/// the configuration's "exercises" naming just those (each file graded as
/// the one of them it is, every student out of each one's maximum).
std::optional<int> GradeCommand::check_exercises(GradePlan& plan) const {
  GradeOptions& options = plan.options;
  if (options.exercise.empty()) return std::nullopt;
  std::vector<std::string> ids;
  std::string rest = options.exercise;
  for (std::size_t at = 0; at != std::string::npos;) {
    const std::size_t comma = rest.find(',', at);
    std::string id = rest.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    at = comma == std::string::npos ? comma : comma + 1;
    try {
      id = load_exercise(id).id;
    } catch (const std::exception& e) {
      std::cerr << "attnlab: --exercise: " << e.what() << "\n";
      return 2;
    }
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  if (ids.size() == 1) {
    options.exercise = ids.front();
    return std::nullopt;
  }
  if (!plan.batch && !plan.upload) {
    std::cerr << "attnlab: --exercise " << options.exercise
              << ": one file is graded as one exercise; several (comma-separated) go with a "
                 "class folder or an upload, each file graded as the one of them it is\n";
    return 2;
  }
  // The configuration's "exercises" naming just these, its overrides of each kept.
  TeacherConfig config = plan.config ? *plan.config : TeacherConfig{};
  std::map<std::string, ExerciseOverrides> only;
  for (const auto& id : ids) only[id] = config.exercises.count(id) ? config.exercises[id] : ExerciseOverrides{};
  config.exercises = std::move(only);
  config.exercise.reset();
  plan.config = std::make_shared<const TeacherConfig>(std::move(config));
  options.config = plan.config;
  options.exercise.clear();
  plan.exercises = ids;
  return std::nullopt;
}

/// The sandbox: what a submission must never see, then the self-test.
void GradeCommand::make_sandbox(GradePlan& plan) const {
  const auto& config = plan.config;
  SandboxOptions sandbox_options;
  sandbox_options.enabled = !no_sandbox;
  sandbox_options.base_uid = sandbox_uid;
  // --max-processes, else the configuration's, else the default.
  sandbox_options.process_allowance =
      config && config->limits.max_processes && !processes_opt->count()
          ? *config->limits.max_processes
          : max_processes;
  sandbox_options.never_bind = {fs::path(paths::source_dir)};
  sandbox_options.show_whole = {fs::path(paths::exercises_dir)};
  sandbox_options.hidden = {fs::path(paths::source_dir) / "solutions"};
  auto hide = [&](const fs::path& p) {
    std::error_code ec;
    sandbox_options.hidden.push_back(fs::absolute(p, ec).lexically_normal());
  };
  if (config && !config->path.empty()) hide(config->path);  // none: --exercise F2,F3 alone
  // Folders of submissions (other students' work); a single file is shown as a private copy.
  for (const auto& f : files)
    if (is_folder(f)) hide(f);
  if (out_dir) hide(*out_dir);
  if (results_json) hide(*results_json);
  if (junit) hide(*junit);
  if (report_file) hide(*report_file);
  if (prairielearn_json) hide(*prairielearn_json);
  plan.options.sandbox = std::make_shared<const Sandbox>(Sandbox::detect(sandbox_options));
}

namespace {
/// Whether `s`, a name given to --students or --only-student, names student id
/// `who`: the id (summary.csv, class_folder.hpp student_id), the folder's raw
/// name, or summary.csv's form of a name starting with = + - @ (an apostrophe
/// before it against spreadsheet formulas: gradebook.hpp csv_cell).
bool names_student(const std::string& s, const std::string& who) {
  if (s == who || student_id(s) == who) return true;
  const bool guarded = s.size() > 1 && s[0] == '\'' && std::string("=+-@\t\r").find(s[1]) != std::string::npos;
  return guarded && names_student(s.substr(1), who);
}

/// Whether `s` names `who` among the students `all`: a name that is some
/// student's own id or raw name names that student alone, so `'-jdoe` picks
/// the folder `'-jdoe`, not also `-jdoe` whose summary.csv form it shares.
bool names_student_among(const std::string& s, const std::string& who,
                         const std::vector<std::string>& all) {
  const auto exact = [&](const std::string& w) { return s == w || student_id(s) == w; };
  if (std::any_of(all.begin(), all.end(), exact)) return exact(who);
  return names_student(s, who);
}
}  // namespace

/// Several files or a class folder: every student into --out.
int GradeCommand::grade_class(const GradePlan& plan) const {
  const auto& config = plan.config;
  const GradeOptions& options = plan.options;
  BatchOptions b;
  b.out_dir = out_dir ? fs::path(*out_dir) : fs::path("attnlab-reports");
  std::vector<fs::path> paths(files.begin(), files.end());
  std::vector<std::string> ignored;
  ClassInputs inputs;
  // --students and --shard: the others' folders are neither walked nor unpacked.
  auto wanted = [&](const std::string& who) {
    const bool named =
        only_students.empty() ||
        std::any_of(only_students.begin(), only_students.end(),
                    [&](const std::string& s) { return names_student(s, who); });
    if (!named || shard.empty()) return named;
    const auto [k, n] = check::parse_shard(shard);
    return in_shard(who, k, n);
  };
  try {
    inputs = collect_class(paths, b.out_dir,
                           collect_rules(fixed_exercise(options), options.config.get()), wanted);
  } catch (const std::exception& e) {
    std::cerr << "attnlab: " << e.what() << "\n";
    return 2;
  }
  ignored = inputs.ignored;
  for (const auto& o : inputs.outputs)
    std::cout << "attnlab: note: skipped " << o
              << ": an output folder attnlab wrote (its lock or summary.json and students/), "
                 "not a student\n";
  b.inputs = std::move(inputs.inputs);
  if (!only_students.empty()) {
    std::vector<std::string> all;
    for (const BatchInput& in : b.inputs) all.push_back(in.student.empty() ? in.name : in.student);
    const auto names = [&](const std::string& s, const std::string& who) {
      return names_student_among(s, who, all);
    };
    std::erase_if(b.inputs, [&](const BatchInput& in) {
      const std::string& who = in.student.empty() ? in.name : in.student;
      return std::none_of(only_students.begin(), only_students.end(),
                          [&](const std::string& s) { return names(s, who); });
    });
    for (const auto& s : only_students)
      if (std::none_of(b.inputs.begin(), b.inputs.end(),
                       [&](const auto& in) { return names(s, in.student); })) {
        if (s.empty())
          std::cerr << "attnlab: an empty name names no student (--students, --only-student)\n";
        else
          std::cerr << "attnlab: no student " << student_id(s) << " in " << files.front() << "\n";
        return 2;
      }
  }
  if (!shard.empty()) {
    const auto [k, n] = check::parse_shard(shard);
    std::erase_if(b.inputs, [&](const BatchInput& in) {
      return !in_shard(in.student.empty() ? in.name : in.student, k, n);
    });
    std::cout << "attnlab: shard " << k << "/" << n << ": " << b.inputs.size()
              << " file(s) of this shard's students\n";
    if (b.inputs.empty()) {
      std::cout << "attnlab: no student falls in shard " << shard << "; nothing to grade\n";
      return 0;
    }
  }
  for (const auto& i : ignored) {
    std::string why = " (not .py, .cpp, .json or executable)";
    if (is_answers_file(i)) {
      std::error_code ec;
      const AnswersExercise a = fs::exists(i, ec) ? read_answers_exercise(i) : AnswersExercise{};
      why = a.refused.empty() ? " (not an answers file: its \"exercise\" is not " + answers_exercises_text() + ")"
                              : " (not read as an answers file: " + a.refused +
                                    (a.refused.find("larger than") != std::string::npos
                                         ? ", the limit of an answers file)" : ")");
    }
    std::cout << "attnlab: ignored " << i << why << "\n";
  }
  if (b.inputs.empty()) {
    std::cerr << "attnlab: " << no_submission_message(paths, ignored) << "\n";
    return 2;
  }
  b.jobs = jobs;
  if (junit) b.junit = fs::path(*junit);
  b.base = options;
  b.restart = restart;
  b.anonymise_salt = !anonymise_salt.empty() ? anonymise_salt
                     : config                ? config->anonymise_salt
                                             : "";
  b.signing_key = config ? config->signing_key : "";
  b.settings = grading_settings(options, precision, config_file, plan.exercises);
  if (options.submission_timeout.count() > 0)
    b.child_timeout =
        options.submission_timeout + 2 * options.launch.compile_timeout + std::chrono::minutes(2);
  std::cout << "sandbox: " << options.sandbox->status() << "\n";
  return grade_batch(b, std::cout);
}

/// One submission, or one student's upload folder.
int GradeCommand::grade_one(GradePlan& plan) const {
  GradeOptions& options = plan.options;
  options.file = files.front();
  options.brief_header = !verbose;
  // Colour on a terminal (NO_COLOR honoured); the report files stay plain.
  std::unique_ptr<ColourBuf> colour;
  std::streambuf* plain = std::cout.rdbuf();
  if (colour_wanted()) {
    colour = std::make_unique<ColourBuf>(plain);
    std::cout.rdbuf(colour.get());
  }
  struct Restore {
    std::streambuf* buf;
    ~Restore() {
      std::cout.flush();
      std::cout.rdbuf(buf);
    }
  } restore{plain};
  ReportFiles report_files;
  if (prairielearn_json) report_files.prairielearn = fs::path(*prairielearn_json);
  if (plan.upload) {
    std::string why;
    ClassInputs inputs;
    try {
      inputs = collect_upload(files.front(),
                              collect_rules(fixed_exercise(options), options.config.get()), &why);
    } catch (const std::exception& e) {
      std::cerr << "attnlab: " << e.what() << "\n";
      return 2;
    }
    if (inputs.inputs.empty()) {
      GradeResult r;
      r.status = GradeResult::Status::usage_error;
      r.exercise = fixed_exercise(options);
      r.message = "nothing to grade: no .py, .cpp or .ipynb file was uploaded (the upload: " + why +
                  "). Upload your .py, .cpp or .ipynb file (and answers .json for " +
                  answers_exercises_text(" and ") + ").";
      options.display_name = "the upload";
      complete_scoring(r, options);
      // Out of the class's maximum when the exercises are known (fixed, or
      // the configuration's several), as every other upload is.
      try {
        double max_score = 0;
        for (const auto& c : class_columns(fixed_exercise(options), options.config.get(), {}, options.only_property))
          max_score += c.max_score;
        if (max_score > 0) r.max_score = max_score;
      } catch (const std::exception&) {
        // no known maximum: as before
      }
      try {
        if (results_json) write_results_json(*results_json, r);
        if (prairielearn_json) write_prairielearn_json(*prairielearn_json, r);
      } catch (const std::exception& e) {
        std::cerr << "attnlab: " << e.what() << "\n";
      }
      std::cout << "attnlab: " << r.message << "\n";
      return 2;
    }
    // Every entry of the upload (one per exercise it holds; every attempt
    // with "attempts": "best"), each exercise out of its fixed maximum.
    if (report_file) report_files.text = fs::path(*report_file);
    if (results_json) report_files.results_json = fs::path(*results_json);
    if (junit) report_files.junit = fs::path(*junit);
    return grade_upload(inputs.inputs, options, fixed_exercise(options), report_files, std::cout);
  }
  if (results_json) report_files.results_json = fs::path(*results_json);
  if (junit) report_files.junit = fs::path(*junit);
  if (report_file) report_files.text = fs::path(*report_file);
  const auto result = grade_and_report(options, std::cout, report_files);
  std::cout.flush();
  if (result.status == GradeResult::Status::usage_error ||
      result.status == GradeResult::Status::infrastructure_error) {
    std::cerr << "attnlab: " << result.message << "\n";
  }
  return result.exit_code();
}

std::shared_ptr<GradeCommand> add_grade_command(CLI::App& app) {
  auto c = std::make_shared<GradeCommand>();
  c->run.cases = prop::default_case_count();
  c->add_options(app);
  return c;
}

std::optional<int> run_grade_command(const GradeCommand& command) {
  if (!command.grade || !command.grade->parsed()) return std::nullopt;
  return command.execute();
}

}  // namespace attn::grader

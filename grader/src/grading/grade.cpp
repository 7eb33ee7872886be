// Grading one submission file.
#include "grading/grade.hpp"
#include "grading/data_files.hpp"
#include "sandbox/file_problem.hpp"
#include "grading/grade_answers.hpp"
#include "grading/scoring_rules.hpp"
#include "grading/teacher_config.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>

#include "exercises/answers.hpp"
#include "sandbox/budget_subject.hpp"
#include "attn/prop/memo_subject.hpp"
#include "exercises/exercise.hpp"
#include "exercises/registry.hpp"
#include "protocol/untrusted_text.hpp"
#include "sandbox/exit_status.hpp"
#include "sandbox/memory_cgroup.hpp"
#include "attn/grader/paths.hpp"
#include "sandbox/guarded_run.hpp"
#include "sandbox/temp_dir.hpp"
#include "submission/cpp_build.hpp"
#include "submission/notebook.hpp"
#include "submission/recognise.hpp"
#include "diagnosis/diagnosis_stage.hpp"
#include "report/text_report.hpp"
#include "attn/prop/catalog.hpp"
#include "exercises/listed.hpp"

namespace attn::grader {

std::vector<attn::prop::Property> exercise_properties(const std::string& exercise) {
  try {
    return load_exercise(exercise).properties;
  } catch (const std::invalid_argument&) {
    return {};
  }
}

namespace {

/// Loads `id` into `exercise`; on failure sets result's status and message.
bool load(const std::string& id, std::optional<Exercise>& exercise, GradeResult& result) {
  try {
    exercise = load_exercise(id);
    result.exercise = id;
    return true;
  } catch (const std::invalid_argument& e) {
    result.status = GradeResult::Status::usage_error;
    result.message = e.what();
  } catch (const std::exception& e) {
    result.status = GradeResult::Status::infrastructure_error;
    result.message = std::string("cannot build the property list: ") + e.what();
  }
  return false;
}

}  // namespace

std::filesystem::path answers_root(const GradeOptions& options, const std::filesystem::path& file) {
  if (options.confine_to.empty()) return {};
  const std::filesystem::path rel = file.lexically_relative(options.confine_to);
  if (rel.empty() || *rel.begin() == ".." || rel.is_absolute()) return {};
  return options.confine_to;
}

namespace {

/// A usage error if options.answers cannot serve as `exercise`'s answers.
bool answers_usable(const GradeOptions& options, const Exercise& exercise, GradeResult& result) {
  if (!options.answers) return true;
  if (auto why = answers_usage_problem(exercise, *options.answers,
                                       answers_root(options, *options.answers))) {
    result.status = GradeResult::Status::usage_error;
    result.message = *why;
    return false;
  }
  return true;
}

/// `text` with every occurrence of `from` replaced by `to` (the staged copy's
/// path by the submission's name, in compiler messages).
std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  if (from.empty()) return text;
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// The exercise to grade as: --exercise, or recognised from the file. An
/// executable is recognised later, from its hello (`from_hello`). False
/// (with result's status and message set) when there is nothing to grade.
bool choose_exercise(const GradeOptions& options, std::optional<Exercise>& exercise,
                     bool& from_hello, GradeResult& result, bool& unrecognised) {
  from_hello = false;
  unrecognised = false;
  if (options.kernel) {
    exercise = *options.kernel;
    result.exercise = options.kernel->id;
    result.recognised_by = options.kernel->title;
    return true;
  }
  if (!options.exercise.empty()) return load(options.exercise, exercise, result);
  if (const auto problem = not_a_file(options.file)) {
    result.status = GradeResult::Status::usage_error;
    result.message = *problem;
    return false;
  }
  const Recognition rec = recognise_exercise(options.file);
  const TeacherConfig* config = options.config.get();
  if (config && !is_answers_file(options.file)) {
    if (const auto fixed = fixed_exercise(*config)) {
      // The configuration decides; the file cannot move itself to another exercise.
      result.recognised_by = "fixed by the teacher configuration";
      if (rec.status == Recognition::Status::recognised && rec.exercise != *fixed)
        result.recognised_by += "; the file looks like " + rec.exercise + " (" + rec.how +
                                "), which is not graded here";
      return load(*fixed, exercise, result);
    }
    if (rec.status == Recognition::Status::recognised && !config->exercises.empty() &&
        !config->exercises.count(rec.exercise)) {
      std::string named;
      for (const auto& [id, _] : config->exercises) named += (named.empty() ? "" : ", ") + id;
      result.status = GradeResult::Status::usage_error;
      result.message = options.file.string() + " looks like exercise " + rec.exercise + " (" +
                       rec.how + "), which the teacher configuration does not grade (it grades " +
                       named + "); not graded";
      return false;
    }
  }
  if (rec.status == Recognition::Status::needs_hello) {
    from_hello = true;
    return true;
  }
  if (rec.status != Recognition::Status::recognised) {
    result.status = GradeResult::Status::usage_error;
    result.message = rec.message;
    unrecognised = true;
    return false;
  }
  result.recognised_by = rec.how;
  // A file given with an answers file is graded as the exercise the answers
  // file names ({"exercise": "F2"}) when it defines it, or defines the code
  // that exercise's code is recognised as (F4's answers, code recognised as
  // F3: the registry's code_recognised_as), as a class folder pairs them.
  std::string chosen = rec.exercise;
  std::string same_code;  // the exercise whose interface the chosen one's code has (F3 for F4)
  if (options.answers) {
    const AnswersExercise a = read_answers_exercise(*options.answers, answers_root(options, *options.answers));
    const auto defines = [&rec](const std::string& id) {
      return id == rec.exercise || std::find(rec.defines.begin(), rec.defines.end(), id) != rec.defines.end();
    };
    const ExerciseSpec* spec = a.exercise ? find_exercise_spec(*a.exercise) : nullptr;
    const std::string answers_name = options.answers->filename().string();
    if (a.exercise && *a.exercise != rec.exercise && defines(*a.exercise)) {
      chosen = *a.exercise;
      result.recognised_by = "it defines " + chosen + ", the exercise of the answers file " + answers_name;
    } else if (spec && *a.exercise != rec.exercise && !spec->code_recognised_as.empty() &&
               defines(spec->code_recognised_as)) {
      chosen = *a.exercise;
      same_code = spec->code_recognised_as;
      result.recognised_by = "it defines " + spec->code_recognised_as + "'s interface, which " + chosen +
                             "'s code has, and the answers file " + answers_name + " is " + chosen + "'s";
    }
  }
  // One file, one report: the other exercises it defines are named, with how to grade them.
  std::vector<std::string> others;
  for (const auto& id : rec.defines)
    if (id != chosen && id != same_code) others.push_back(id);
  if (!others.empty())
    result.recognised_by += "; it also defines " + listed(others) + " (graded one at a time with --exercise " + others.front() +
                            ", or each in its own row with --out DIR)";
  return load(chosen, exercise, result);
}

/// A submission made ready to run: its launch (command, language, build
/// messages) and, in the sandbox, the private copy it runs from.
struct Prepared {
  Launch launch;
  std::optional<StagedSubmission> staged;
  /// One memory limit for all of the submission's processes; null where no
  /// memory cgroup can be made (the limit is then per process).
  std::shared_ptr<MemoryCgroup> cgroup;
  std::string no_cgroup_why;
  /// A C++ entry's helper sources as named from its folder (linked with it).
  std::vector<std::string> cpp_helper_names;
  /// The staged copy's path replaced by the submission's name (compiler
  /// messages and commands must not show the grader's temporary folders).
  std::string shown(std::string text, const std::string& name) const {
    if (staged) {
      text = replace_all(std::move(text), staged->path().string(), name);
      text = replace_all(std::move(text), staged->folder().string() + "/", "");  // helpers
      text = replace_all(std::move(text), staged->folder().string(), ".");
    }
    // Nor the checkout's location: its folders are named from its root.
    return replace_all(std::move(text), std::string(paths::source_dir) + "/", "<attnlab>/");
  }
};

/// The C++ file defines a main() function (read as text, never compiled).
bool defines_main(const std::filesystem::path& file) {
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  static const std::regex main_function(R"(\bint\s+main\s*\()");
  return std::regex_search(text, main_function);
}

/// The helpers of `options` and, for a file the user named (no student's
/// folder: options.confine_to empty), the data files its code opens by name
/// (data_files.hpp) found beside it: regular files of at most
/// kNamedDataFileBytes, a link taken only to a regular file in that same
/// folder (resolved, so the staged copy never follows it). A class folder's
/// entry already has its student's data files among its helpers.
std::vector<std::pair<std::filesystem::path, std::filesystem::path>> with_named_data_files(
    const GradeOptions& options) {
  namespace fs = std::filesystem;
  constexpr std::uintmax_t kNamedDataFileBytes = 1u << 20;
  auto helpers = options.helpers;
  if (!options.confine_to.empty() || is_answers_file(options.file)) return helpers;
  std::error_code ec;
  const fs::path folder = fs::weakly_canonical(fs::absolute(options.file).parent_path(), ec);
  if (ec) return helpers;
  for (const auto& name : opened_file_names(options.file)) {
    const fs::path rel = fs::path(name).lexically_normal();
    if (rel.has_parent_path()) continue;  // beside the file only
    const fs::path target = fs::canonical(folder / rel, ec);
    if (ec || target.parent_path() != folder || !fs::is_regular_file(target, ec) ||
        fs::file_size(target, ec) > kNamedDataFileBytes || ec)
      continue;
    helpers.push_back({target, rel});
  }
  return helpers;
}

/// Copies the submission into the sandbox (if any) and prepares it to speak
/// the protocol: the Python harness, a C++ build, or the executable itself.
/// False (result set) if it cannot even be copied.
bool prepare(const GradeOptions& options, const std::optional<Exercise>& exercise,
             const std::string& shown, Prepared& prepared, GradeResult& result) {
  LaunchOptions launch_options = options.launch;
  launch_options.exercise = exercise ? exercise->id : "";  // an executable does not use it
  // In the sandbox the submission is a private copy: nothing else of its folder is visible.
  std::filesystem::path file = options.file;
  const auto helpers = with_named_data_files(options);
  if (options.sandbox) {
    const std::shared_ptr<const Sandbox> sandbox = options.sandbox;
    const int slot = options.slot;
    if (const std::uint64_t bytes = options.launch.limits.address_space_bytes; bytes > 0)
      prepared.cgroup = MemoryCgroup::create(bytes, &prepared.no_cgroup_why);
    std::shared_ptr<MemoryCgroup> cgroup = prepared.cgroup;
    // With helper files, every command runs in the private copy's folder, so
    // the sandbox shows that folder (the helpers beside the file) too.
    auto helpers_folder = std::make_shared<std::filesystem::path>();
    launch_options.wrap = [sandbox, slot, cgroup, helpers_folder](Command& c) {
      if (!helpers_folder->empty() && c.cwd.empty()) c.cwd = helpers_folder->string();
      sandbox->apply(c, slot);
      if (cgroup) c.cgroup_procs = cgroup->procs_file();
    };
    if (sandbox->active() || sandbox->drops_to_own_uid()) {
      try {
        prepared.staged.emplace(options.file, python_harness_path(), helpers, options.confine_to);
        file = prepared.staged->path();
        if (!helpers.empty()) *helpers_folder = prepared.staged->folder();
        launch_options.python_harness = prepared.staged->harness().string();
      } catch (const std::exception& e) {
        result.status = GradeResult::Status::usage_error;
        result.message = "cannot copy " + options.file.string() + ": " + e.what();
        return false;
      }
    } else if (!helpers.empty()) {
      // Not copied: the submission runs beside its own files.
      *helpers_folder = std::filesystem::absolute(options.file).parent_path().string();
    }
  }
  // A C++ entry's helper sources (a class folder's other .cpp files), where
  // the entry is: in the private copy when there is one. Not linked: a file
  // of an exercise (another entry) and a file with its own main() (the
  // student's test driver), which would not link with the harness.
  for (const auto& [src, rel] : helpers) {
    static const std::set<std::string> cpp_sources = {".cpp", ".cc", ".cxx", ".c++"};
    if (!cpp_sources.count(rel.extension().string()) || defines_main(src) ||
        recognise_exercise(src).status == Recognition::Status::recognised)
      continue;
    launch_options.cpp_helper_sources.push_back(prepared.staged ? prepared.staged->folder() / rel : src);
    prepared.cpp_helper_names.push_back(rel.string());
  }
  if (!helpers.empty())
    launch_options.cpp_helper_folder = prepared.staged ? prepared.staged->folder() : std::filesystem::absolute(options.file).parent_path();
  prepared.launch = prepare_submission(file, launch_options);
  prepared.launch.message = prepared.shown(prepared.launch.message, shown);
  prepared.launch.build_command = prepared.shown(prepared.launch.build_command, shown);
  return true;
}

/// What the report header says about this grading (submission, exercise,
/// language and runtime, seed, cases, limits, sandbox).
void fill_header(const GradeOptions& options, const std::optional<Exercise>& exercise,
                 const Prepared& prepared, const std::string& shown, GradeResult& result) {
  const Launch& launch = prepared.launch;
  ReportHeader& header = result.header;
  header.submission = shown;
  header.exercise = exercise ? exercise->id : "not known yet (the executable says it in its hello)";
  if (exercise) header.title = exercise->title;
  header.recognised = result.recognised_by;
  header.language = language_name(launch.language);
  header.runtime = launch.runtime;
  header.runtime_label = launch.language == Language::python ? "interpreter"
                         : launch.language == Language::cpp  ? "compiler"
                                                              : "runs as";
  header.seed = options.run.seed;
  header.cases = options.run.cases;
  header.timeout = describe_duration(options.subject.call_timeout);
  header.mode = options.mode;
  header.settings_from = options.settings_from;
  header.limits = describe_limits(options);
  header.notes = options.notes;
  if (prepared.cgroup) {
    header.limits += "; memory " + std::to_string(prepared.cgroup->limit_bytes() >> 20) +
                     " MiB for all its processes together (" + prepared.cgroup->kind() + ")";
  } else if (options.sandbox && options.launch.limits.address_space_bytes > 0) {
    header.limits += "; memory per process only (no memory cgroup: " +
                     prepared.no_cgroup_why + ")";
  }
  if (options.sandbox) {
    header.sandbox = options.sandbox->status();
    header.processes = options.sandbox->process_limit(options.slot).how;
  }
  header.brief = options.brief_header;
  if (launch.language == Language::cpp && exercise) {
    std::vector<std::string> sources = {options.file.filename().string()};
    sources.insert(sources.end(), prepared.cpp_helper_names.begin(), prepared.cpp_helper_names.end());
    try {
      result.cpp_reproduction_build =
          reproduction_build_command(exercise->id, sources, prepared.launch.cpp_other_interfaces);
    } catch (const std::invalid_argument&) {
      // no C++ harness for this exercise: the report says less
    }
  }
}

/// Turns a launch that is not ready into the result (a compile error is
/// reported as not gradable, with the header). False unless ready.
bool launch_ready(const Launch& launch, std::ostream& report, GradeResult& result) {
  switch (launch.status) {
    case Launch::Status::ready:
      return true;
    case Launch::Status::not_gradable:
      result.status = GradeResult::Status::not_gradable;
      result.message = launch.message;
      print_header(report, result.header);
      report_not_gradable(report, result, "did not compile", launch.message, launch.build_command);
      return false;
    case Launch::Status::usage_error:
      result.status = GradeResult::Status::usage_error;
      break;
    case Launch::Status::infrastructure_error:
      result.status = GradeResult::Status::infrastructure_error;
      break;
  }
  result.message = launch.message;
  return false;
}

/// A submission that did not start (no hello, a crash at load): not
/// gradable, with its stderr and the command that failed.
void report_did_not_start(const std::string& why, ProcessSubject& subject, const Prepared& prepared,
                          const std::string& shown, std::ostream& report, GradeResult& result) {
  result.status = GradeResult::Status::not_gradable;
  result.message = why;
  print_header(report, result.header);
  std::string details = "The submission " + why + "\n";
  if (const std::string tail = subject.stderr_tail(); !tail.empty()) {
    details += "\nIts stderr (last " + std::to_string(tail.size()) + " bytes):\n" + fenced(tail);
  }
  Command without_sandbox = prepared.launch.command;
  without_sandbox.prefix.clear();
  result.stderr_tail = subject.stderr_tail();
  report_not_gradable(report, result, "did not start", prepared.shown(details, shown),
                      prepared.shown(without_sandbox.display(), shown));
}

/// For an executable: the exercise its hello names. False (result set, the
/// subject stopped) when the hello names none this grader knows.
bool exercise_from_hello(const GradeOptions& options, ProcessSubject& subject,
                         std::optional<Exercise>& exercise, GradeResult& result) {
  const Recognition rec = recognise_from_hello(subject.hello());
  if (rec.status != Recognition::Status::recognised) {
    subject.stop();
    result.status = GradeResult::Status::usage_error;
    result.message = rec.message;
    return false;
  }
  result.recognised_by = rec.how;
  if (!load(rec.exercise, exercise, result) || !answers_usable(options, *exercise, result)) {
    subject.stop();
    return false;
  }
  result.header.exercise = exercise->id;
  result.header.title = exercise->title;
  result.header.recognised = rec.how;
  return true;
}

/// The explanation's idiom for a submission's language: NumPy for a .py
/// file, C++/Eigen for a .cpp file, neutral for an executable.
attn::mis::Language explanation_language(Language l) {
  switch (l) {
    case Language::python: return attn::mis::Language::numpy;
    case Language::cpp: return attn::mis::Language::cpp;
    case Language::executable: break;
  }
  return attn::mis::Language::neutral;
}

/// One property's verdict before it is recorded.
struct Graded {
  attn::prop::Verdict verdict;
  double seconds = 0;
  const attn::prop::Property* property = nullptr;  ///< the property that gave `verdict`
};

/// The diagnosis stage (diagnosis/diagnosis_stage.hpp), after every property
/// has been graded: each failed verdict's counterexample is diagnosed on the
/// submission through the time budget (a diagnosis the budget or a restart
/// cap cuts short says nothing), at most once per distinct counterexample.
/// The verdicts are already final: nothing here changes one or a score.
std::vector<std::optional<FailureDiagnosis>> diagnose_failures(const std::vector<Graded>& graded,
                                                               const Exercise& exercise,
                                                               Language language,
                                                               ProcessSubject& subject,
                                                               BudgetSubject& budget) {
  std::vector<std::optional<FailureDiagnosis>> out(graded.size());
  int subject_mark = subject.not_run();
  const int budget_mark = budget.not_run();
  const DiagnosisStop stopped = [&]() -> std::optional<std::string> {
    if (budget.spent() || budget.not_run() > budget_mark) return budget.stop_reason();
    if (subject.not_run() > subject_mark) return subject.stop_reason();
    return std::nullopt;
  };
  DiagnosisStage stage(budget, explanation_language(language), stopped, exercise.fully_forbidden);
  // Every failure of the report is evidence for each diagnosis, the later ones too.
  for (const Graded& g : graded) stage.add_failure(g.verdict);
  for (std::size_t k = 0; k < graded.size(); ++k) {
    const attn::prop::Verdict& v = graded[k].verdict;
    if (!v.counts_as_failed()) continue;
    subject.begin_run();  // fresh restart and timeout caps, as for a property
    subject_mark = subject.not_run();
    out[k] = stage.diagnose(v, graded[k].property);
  }
  stage.withdraw_contradicted(out);
  return out;
}

/// Runs every property of the exercise on the subject, each with fresh
/// restart and timeout caps, under the submission's time budget; then the
/// diagnosis stage on the failed ones; then records (prints and scores) each
/// verdict with its diagnosis; then the answers item.
void run_properties(const GradeOptions& options, const Exercise& exercise, ProcessSubject& subject,
                    BudgetSubject& budget, Language language, std::ostream& report,
                    GradeResult& result) {
  const ScoringRules rules =
      scoring_rules(exercise, options.config.get(), options.generated_visibility);
  std::vector<Graded> graded;
  for (const auto& p : exercise.properties) {
    if (!options.only_property.empty() && p.id != options.only_property) continue;  // --property
    const auto t0 = std::chrono::steady_clock::now();
    // A property cut short by a cap or the time budget shows its real
    // failure, or says it was not run (guarded_run.hpp), never a
    // counterexample made of cases that were not run.
    subject.begin_run();
    const int subject_mark = subject.not_run(), budget_mark = budget.not_run();
    const StopCheck stopped = [&]() -> std::optional<std::string> {
      if (budget.not_run() > budget_mark) return budget.stop_reason();
      if (subject.not_run() > subject_mark) return subject.stop_reason();
      return std::nullopt;
    };
    attn::prop::RunConfig run = options.run;
    if (budget.spent()) {  // one case (refused at once) tells whether the property applies
      run.cases = 1;
      run.shrink = false;
    }
    graded.push_back(Graded{run_guarded(p, budget, run, stopped), seconds_since(t0), &p});
  }
  // The diagnosis battery sends small shapes of its own: not to a kernel
  // that declared the shapes it takes (check --head-dims, --tile-multiple).
  const attn::prop::ShapeSpace& shapes = options.run.shapes;
  const auto diagnoses = shapes.head_dims.empty() && shapes.tile_multiple <= 1
                             ? diagnose_failures(graded, exercise, language, subject, budget)
                             : std::vector<std::optional<FailureDiagnosis>>(graded.size());
  subject.stop();
  for (std::size_t k = 0; k < graded.size(); ++k) {
    record_verdict(report, result, std::move(graded[k].verdict), rules, graded[k].seconds,
                   diagnoses[k] ? &*diagnoses[k] : nullptr);
  }
  if (exercise.has_answers() && (options.only_property.empty() || options.only_property == kAnswersItem)) {
    const std::filesystem::path root =
        options.answers ? answers_root(options, *options.answers) : std::filesystem::path();
    record_verdict(report, result, check_answers(exercise, options.answers, root), rules);
  }
}

/// The notes after the verdicts (restarts, the time budget) and the summary.
void finish_report(const GradeOptions& options, const ProcessSubject& subject,
                   const BudgetSubject& budget, std::ostream& report, GradeResult& result) {
  if (subject.restarts() > 0 || subject.timeouts() > 0) {
    report << "\nnote: the submission was restarted " << subject.restarts()
           << " times after faults (" << subject.timeouts()
           << " timeouts); at most " << options.subject.max_restarts << " restarts and "
           << options.subject.max_timeouts << " timeouts per property\n";
  }
  if (budget.exhausted()) {
    result.budget_stop = budget.stop_reason();
    report << "\nnote: the submission used up its time budget of "
           << describe_duration(budget.budget()) << "; the cases after that were not run\n";
  }
  result.stderr_tail = subject.stderr_tail();
  print_summary(report, result, result.stderr_tail);
}

}  // namespace

namespace {

/// Marks `result` not gradable and prints its report's header: the
/// submission and exercise as shown, the run's seed and cases.
void begin_not_gradable(const GradeOptions& options, const std::string& shown, const std::string& exercise,
                        GradeResult& result, std::ostream& report) {
  result.status = GradeResult::Status::not_gradable;
  result.header.submission = shown;
  result.header.exercise = exercise;
  result.header.seed = options.run.seed;
  result.header.cases = options.run.cases;
  result.header.brief = options.brief_header;
  print_header(report, result.header);
}

/// A notebook (notebook.hpp): its code cells as Python in a private folder,
/// with its helpers beside it, graded as a Python file under the notebook's
/// name with the note of what was skipped; not gradable, with the reason,
/// when it cannot be read.
GradeResult grade_notebook(const GradeOptions& options, std::ostream& report) {
  GradeOptions o = options;
  if (o.display_name.empty()) o.display_name = options.file.string();
  NotebookPython nb;
  try {
    nb = read_notebook(options.file);
  } catch (const NotebookError& e) {
    GradeResult result;
    result.exercise = options.kernel ? options.kernel->id : options.exercise;
    result.message = std::string("is not a notebook attnlab can read: ") + e.what();
    result.header.language = "Python (a Jupyter notebook)";
    begin_not_gradable(options, untrusted_text(o.display_name, 400),
                       result.exercise.empty() ? "not known" : result.exercise, result, report);
    report_not_gradable(report, result, "is not a notebook attnlab can read",
                        std::string("What is wrong: ") + e.what() + ".\n", "");
    return result;
  }
  try {
    const auto folder = std::make_shared<TempDir>("attnlab-notebook-");
    o.file = folder->path() / (options.file.stem().string() + ".py");
    std::ofstream(o.file) << "# converted by attnlab from " << o.display_name << "\n" << nb.python;
    for (const auto& [src, rel] : options.helpers) {  // importable beside it, as beside the notebook
      std::filesystem::create_directories((folder->path() / rel).parent_path());
      std::filesystem::copy_file(src, folder->path() / rel,
                                 std::filesystem::copy_options::overwrite_existing);
    }
    if (const std::string note = nb.note(); !note.empty()) o.notes.push_back(note);
    GradeResult result = grade_file(o, report);
    return result;
  } catch (const std::exception& e) {
    GradeResult result;
    result.status = GradeResult::Status::infrastructure_error;
    result.message = std::string("cannot write the notebook's Python: ") + e.what();
    return result;
  }
}

/// A student's file (a class folder, an upload: GradeOptions::whole_exercise)
/// of which no exercise can be told is the student's work that cannot be
/// graded: not gradable with the reason (exit status 1), not a usage error
/// of the whole run. Graded alone, the file is the user's mistake (exit 2).
GradeResult unrecognised_work(const GradeOptions& options, const std::string& shown,
                              GradeResult& result, std::ostream& report) {
  begin_not_gradable(options, shown, "not known", result, report);
  report_not_gradable(report, result, "answers no exercise attnlab can tell",
                      "What is wrong: " + result.message + "\n", "");
  return result;
}

}  // namespace

GradeResult grade_file(const GradeOptions& options, std::ostream& report) {
  if (is_notebook(options.file) && !is_answers_file(options.file)) return grade_notebook(options, report);
  GradeResult result;
  // A file's name is the student's too: made safe like its other text.
  const std::string shown = untrusted_text(
      options.display_name.empty() ? options.file.string() : options.display_name, 400);
  std::optional<Exercise> exercise;
  bool from_hello = false, unrecognised = false;
  if (!choose_exercise(options, exercise, from_hello, result, unrecognised)) {
    if (unrecognised && options.whole_exercise) return unrecognised_work(options, shown, result, report);
    return result;
  }
  if (is_answers_file(options.file) && exercise)
    return grade_answers_file(options, *exercise, result, report);
  if (exercise && !answers_usable(options, *exercise, result)) return result;

  Prepared prepared;
  if (!prepare(options, exercise, shown, prepared, result)) return result;
  fill_header(options, exercise, prepared, shown, result);
  // The data files the code opens by name and cannot find where it runs.
  for (const auto& name : missing_data_files(
           options.file, prepared.staged ? prepared.staged->folder()
                                         : std::filesystem::absolute(options.file).parent_path()))
    result.header.notes.push_back(
        "the code opens " + name + ", which is not beside it where it runs: a data file is copied "
        "with the code only from the student's own folder, a regular file (or a link inside that "
        "folder) of at most 1 MiB; hand it in beside the code");
  if (!launch_ready(prepared.launch, report, result)) return result;

  ProcessSubject subject(shown, prepared.launch.command, options.subject);
  if (auto why = subject.start()) {
    if (options.kernel && subject.missing_entry()) {
      // `attnlab check`: no function to call is the command line's mistake
      // (--entry), not the kernel's (exit status 2, MANUAL.md "Exit status").
      result.status = GradeResult::Status::usage_error;
      result.message = shown + ": " + *subject.missing_entry();
      return result;
    }
    report_did_not_start(*why, subject, prepared, shown, report, result);
    return result;
  }
  if (from_hello && !exercise_from_hello(options, subject, exercise, result)) return result;
  result.header.entry = subject.hello().entry;
  result.header.precision = subject.declared_precision().describe();
  if (prepared.launch.language == Language::executable && !subject.hello().runtime.empty()) {
    result.header.runtime = subject.hello().runtime + " (as its hello says)";
  }
  print_header(report, result.header);

  result.status = GradeResult::Status::graded;
  // Each distinct case is asked once (memo_subject.hpp): the properties
  // share their seed and the diagnosis batteries their standard cases.
  attn::prop::MemoSubject memo(subject);
  BudgetSubject budget(memo, options.submission_timeout,
                       options.budget_start.value_or(std::chrono::steady_clock::now()),
                       options.budget_option);
  const auto started = std::chrono::steady_clock::now();
  run_properties(options, *exercise, subject, budget, prepared.launch.language, report, result);
  result.seconds = seconds_since(started);
  count_missing_part(options, *exercise, false, result);
  if (prepared.cgroup && prepared.cgroup->oom_kills() > 0) {
    report << "\nnote: the kernel ended the submission's processes " << prepared.cgroup->oom_kills()
           << " times for using more than its memory limit of "
           << (prepared.cgroup->limit_bytes() >> 20) << " MiB (all its processes together)\n";
  }
  finish_report(options, subject, budget, report, result);
  return result;
}

}  // namespace attn::grader

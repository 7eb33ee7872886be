// attnlab merge and attnlab gradescope-zip (see class_cli.hpp).
#include "commands/class_cli.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attn/grader/paths.hpp"
#include "exercises/registry.hpp"
#include "grading/gradebook.hpp"
#include "grading/shard_merge.hpp"
#include "grading/teacher_config.hpp"
#include "report/results_json.hpp"
#include "sandbox/run_command.hpp"
#include "sandbox/temp_dir.hpp"

namespace attn::grader {

namespace fs = std::filesystem;

struct ClassCommands {
  CLI::App* merge = nullptr;
  std::vector<std::string> merge_inputs;
  std::string merge_out;
  bool allow_overlap = false;
  std::string merge_config;

  CLI::App* zip = nullptr;
  std::string zip_config;
  std::vector<std::string> zip_exercises;
  std::string zip_out = "autograder.zip";

  CLI::App* reveal = nullptr;
  std::vector<std::string> reveal_ids;
  std::string reveal_out;
  std::string reveal_salt;
  std::string reveal_config;
};

namespace {

/// `attnlab merge` (grading/shard_merge.hpp): later inputs win for a
/// student graded in several, which only --allow-overlap accepts.
int run_merge(const ClassCommands& c) {
  MergeOptions options;
  for (const auto& in : c.merge_inputs) options.shards.push_back(in);
  options.out = c.merge_out;
  options.allow_overlap = c.allow_overlap;
  Gradebook merged;
  try {
    if (!c.merge_config.empty()) {
      options.key = read_teacher_config(c.merge_config).signing_key;
      if (options.key.empty())
        throw std::runtime_error(c.merge_config + " has no \"signing_key\": merge takes "
                                 "--config only for the key that checks the shards' signatures");
    }
    merged = merge_shards(options);
  } catch (const std::exception& e) {
    std::cerr << "attnlab: " << e.what() << "\n";
    return 2;
  }
  if (options.key.empty())
    std::cerr << "attnlab: warning: no signing key (--config FILE with \"signing_key\"): the "
                 "shards are unsigned, so merge checked only that each is consistent and "
                 "cannot tell a forged shard (rows, reports and results.json edited to agree) "
                 "from a real one\n";
  std::cout << "attnlab: merged " << c.merge_inputs.size() << " gradebook(s): "
            << merged.students.size() << " students into " << options.out.string() << "\n\n"
            << overview_text(merged);
  return 0;
}

/// The setup.sh of the autograder zip: unpack attnlab's sources and run the
/// README's two install steps (scripts/install-deps, scripts/build), the
/// build without the test suite and the benchmarks (grading needs neither).
/// AUTOGRADER (default /autograder) moves the whole layout, for trying it
/// elsewhere (grader/tests/platforms_setup_test.sh).
std::string setup_sh() {
  return R"(#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image.
# It installs attnlab from the sources in this zip with the README's steps
# (scripts/install-deps runs apt-get for any Debian package that is missing),
# building only what grading needs: no test suite, no benchmarks.
# AUTOGRADER moves the layout (default /autograder), to try it elsewhere.
set -euo pipefail
root=${AUTOGRADER:-/autograder}
cd "$root/source"
rm -rf attnlab
mkdir -p attnlab
tar -xzf attnlab-src.tar.gz -C attnlab
attnlab/scripts/install-deps
attnlab/scripts/build -DATTNLAB_BUILD_TESTS=OFF -DATTNLAB_BUILD_BENCH=OFF
test -x attnlab/build/grader/attnlab
chmod 600 "$root/source/attnlab-config.json"
)";
}

/// The files git tracks below `src` (relative to it, those present in the
/// working tree), or nullopt when `src` is not in a git checkout (or git is
/// missing).
std::optional<std::vector<std::string>> tracked_files(const fs::path& src) {
  Command git;
  git.argv = {"git", "-C", src.string(), "ls-files", "-z", "--cached", "--full-name", "."};
  git.limits.address_space_bytes = 0;
  git.limits.cpu_seconds = 0;
  const CommandResult r = run_command(git, std::chrono::minutes(1), std::size_t{64} << 20);
  if (!r.succeeded()) return std::nullopt;
  // --full-name gives paths from the top of the checkout; attnlab may be a
  // folder of it: keep the paths below src, relative to src.
  Command top = git;
  top.argv = {"git", "-C", src.string(), "rev-parse", "--show-prefix"};
  const CommandResult p = run_command(top, std::chrono::minutes(1));
  if (!p.succeeded()) return std::nullopt;
  const std::string prefix = p.output.substr(0, p.output.find('\n'));
  std::vector<std::string> files;
  std::size_t at = 0;
  while (at < r.output.size()) {
    const std::size_t end = r.output.find('\0', at);
    if (end == std::string::npos) break;  // stderr after the list, or a cut
    std::string f = r.output.substr(at, end - at);
    at = end + 1;
    if (f.compare(0, prefix.size(), prefix) != 0) continue;
    f = f.substr(prefix.size());
    std::error_code ec;
    const auto st = fs::symlink_status(src / f, ec);
    if (!ec && (fs::is_regular_file(st) || fs::is_symlink(st))) files.push_back(f);  // not deleted
  }
  if (files.empty()) return std::nullopt;
  return files;
}

/// `attnlab gradescope-zip`: run_autograder, setup.sh, the configuration
/// (with the exercise fixed; with several, "exercises" naming just them,
/// so every upload is out of their maxima: grading/upload.hpp) and
/// attnlab's sources, zipped with zip(1).
int run_zip(const ClassCommands& c) {
  std::vector<std::string> ids;
  for (std::string id : c.zip_exercises) {
    for (char& ch : id) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  std::string exercise;
  for (std::size_t k = 0; k < ids.size(); ++k) exercise += (k ? ", " : "") + ids[k];
  nlohmann::ordered_json config;
  try {
    (void)read_teacher_config(c.zip_config);  // refuses what `grade --config` would refuse
    std::ifstream in(c.zip_config);
    config = nlohmann::ordered_json::parse(in);
    if (ids.size() == 1) {
      config["exercise"] = ids.front();
    } else {
      // Several: each graded, the configuration's overrides of each kept.
      config.erase("exercise");
      nlohmann::ordered_json only = nlohmann::ordered_json::object();
      for (const auto& id : ids)
        only[id] = config.contains("exercises") && config["exercises"].contains(id)
                       ? config["exercises"][id]
                       : nlohmann::ordered_json::object();
      config["exercises"] = std::move(only);
    }
    // The configuration with the exercise fixed must still be valid.
    (void)parse_teacher_config(config.dump(), c.zip_config);
    // The autograder grades one upload into results.json: it writes no
    // gradebook, so neither the anonymisation salt nor the signing key is
    // needed there, and neither is uploaded (secrets stay with the teacher).
    config.erase("anonymise_salt");
    config.erase("signing_key");
  } catch (const std::exception& e) {
    std::cerr << "attnlab: " << e.what() << "\n";
    return 2;
  }
  const fs::path src(paths::source_dir);
  TempDir stage("attnlab-gradescope-");
  const fs::path dir = stage.path();
  try {
    fs::copy_file(src / "grader/examples/run_autograder", dir / "run_autograder");
    fs::permissions(dir / "run_autograder", fs::perms(0755), fs::perm_options::replace);
    std::ofstream(dir / "setup.sh") << setup_sh();
    fs::permissions(dir / "setup.sh", fs::perms(0755), fs::perm_options::replace);
    std::ofstream(dir / "attnlab-config.json") << dump_json(config);
  } catch (const std::exception& e) {
    std::cerr << "attnlab: cannot stage the autograder: " << e.what() << "\n";
    return 2;
  }
  // What attnlab needs: in a git checkout, its tracked files (as they are in
  // the working tree), so student submissions, gradebooks and builds kept in
  // the checkout never reach the autograder; outside git, the folder with
  // its builds, reports and version control left out.
  Command tar;
  tar.limits.address_space_bytes = 0;
  tar.limits.file_size_bytes = 0;
  tar.limits.cpu_seconds = 0;
  std::string shipped;
  if (const auto tracked = tracked_files(src)) {
    const fs::path list = dir / "attnlab-src.files";
    {
      std::ofstream out(list, std::ios::binary);
      for (const auto& f : *tracked) out << f << '\0';
    }
    tar.argv = {"tar", "-czf", (dir / "attnlab-src.tar.gz").string(), "-C", src.string(),
                "--null", "--no-recursion", "-T", list.string()};
    shipped = "attnlab's " + std::to_string(tracked->size()) + " git-tracked files";
  } else {
    tar.argv = {"tar", "-czf", (dir / "attnlab-src.tar.gz").string(), "--exclude-vcs",
                "--exclude=./build", "--exclude=./build-*", "--exclude=./attnlab-reports", "-C",
                src.string(), "."};
    shipped = "every file of " + src.string() +
              " but build*/, attnlab-reports/ and version control (not a git checkout: "
              "keep no student work in it)";
    std::cerr << "attnlab: note: " << src.string()
              << " is not a git checkout: the autograder gets every file in it except build*/, "
                 "attnlab-reports/ and version control\n";
  }
  // -o names the zip, or (an existing folder, or a name without .zip) the
  // folder to put autograder.zip in; a missing folder is made.
  fs::path out = fs::absolute(c.zip_out);
  std::error_code ec;
  if (fs::is_directory(out, ec) || out.extension() != ".zip") out /= "autograder.zip";
  fs::create_directories(out.parent_path(), ec);
  if (ec) {
    std::cerr << "attnlab: cannot make the folder " << out.parent_path().string() << ": "
              << ec.message() << "\n";
    return 2;
  }
  fs::remove(out, ec);
  Command zip;
  zip.argv = {"zip", "-q", "-r", out.string(), "run_autograder", "setup.sh", "attnlab-config.json",
              "attnlab-src.tar.gz"};
  zip.cwd = dir.string();
  zip.limits = tar.limits;
  for (const Command* cmd : {&tar, &zip}) {
    const CommandResult r = run_command(*cmd, std::chrono::minutes(5));
    if (!r.succeeded()) {
      std::cerr << "attnlab: " << cmd->argv[0] << " failed"
                << (r.started ? "" : " to start (Debian: apt-get install zip)") << ": " << r.output
                << "\n";
      return 2;
    }
  }
  std::cout << "attnlab: wrote " << out.string() << " (exercise" << (ids.size() > 1 ? "s " : " ") << exercise
            << "): run_autograder, setup.sh, attnlab-config.json, attnlab-src.tar.gz ("
            << shipped << ")\n"
            << "Upload it as the assignment's autograder (Configure Autograder > Zip file "
               "upload); Gradescope runs setup.sh once, then run_autograder per submission.\n";
  return 0;
}

/// `attnlab reveal` (grading/gradebook.hpp anonymous_id): the students of
/// OUT/summary.json whose anonymous id under the salt is asked for.
int run_reveal(const ClassCommands& c) {
  std::string salt = c.reveal_salt;
  try {
    if (salt.empty() && !c.reveal_config.empty()) salt = read_teacher_config(c.reveal_config).anonymise_salt;
    if (salt.empty()) {
      std::cerr << "attnlab: reveal needs the salt: --salt SALT, or --config FILE with "
                   "\"anonymise_salt\"\n";
      return 2;
    }
    const Gradebook book = read_gradebook(c.reveal_out);
    if (book.students.empty()) {
      std::cerr << "attnlab: no gradebook with students in " << c.reveal_out << "\n";
      return 2;
    }
    std::map<std::string, std::string> by_id;
    for (const auto& s : book.students) by_id[anonymous_id(salt, s.student)] = s.student;
    int code = 0;
    if (c.reveal_ids.empty())
      for (const auto& [id, student] : by_id) std::cout << id << "\t" << student << "\n";
    for (const auto& id : c.reveal_ids) {
      if (auto it = by_id.find(id); it != by_id.end()) {
        std::cout << id << "\t" << it->second << "\n";
      } else {
        std::cerr << "attnlab: " << id << " is no student of " << c.reveal_out
                  << " under this salt (another salt, or another class?)\n";
        code = 1;
      }
    }
    return code;
  } catch (const std::exception& e) {
    std::cerr << "attnlab: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace

std::shared_ptr<ClassCommands> add_class_commands(CLI::App& app) {
  auto c = std::make_shared<ClassCommands>();
  c->merge = app.add_subcommand(
      "merge",
      "Join the gradebooks (summary.json and the reports) of several `attnlab grade --out` "
      "folders, e.g. the shards of --shard K/N, into one. Every row is checked first (its "
      "score is the sum of its points, each within its maximum; its report is the grader's; "
      "its results.json agrees); shards graded with other settings (seed, cases, limits, "
      "configuration), by another attnlab version, with an unknown exercise or sharing a "
      "student are refused (exit 2). With --config (its \"signing_key\") every row's "
      "signature is checked, so an edited shard is refused; without it, a consistently "
      "forged shard cannot be told from a real one.");
  c->merge->add_option("OUT", c->merge_inputs, "the --out folders to join")->required();
  c->merge->add_option("-o,--output", c->merge_out, "the merged folder")->required();
  c->merge->add_flag("--allow-overlap", c->allow_overlap,
                     "accept a student graded in several inputs: the last one given wins "
                     "(to fold a regrade into a merged folder)");
  c->merge->add_option("--config", c->merge_config,
                       "the teacher configuration the shards were graded with: its "
                       "\"signing_key\" checks every row's signature");
  c->zip = app.add_subcommand(
      "gradescope-zip",
      "Build a Gradescope autograder zip: setup.sh (installs attnlab from the sources in the "
      "zip), run_autograder (grades /autograder/submission) and your configuration with the "
      "exercise fixed (several: \"exercises\" naming them, every one of an upload graded).");
  c->zip->add_option("--config", c->zip_config, "your teacher configuration (JSON)")
      ->required()
      ->check(CLI::ExistingFile);
  c->zip->add_option("--exercise", c->zip_exercises,
                     "the exercise of the assignment; several, comma-separated (F2,F3): every one "
                     "an upload holds is graded, each out of its maximum")
      ->required()
      ->delimiter(',')
      ->check(CLI::IsMember(graded_exercise_ids(), CLI::ignore_case));
  c->zip->add_option("-o,--output", c->zip_out,
                     "the zip to write; a folder (existing, or a name without .zip: made if "
                     "missing) gets autograder.zip")
      ->capture_default_str();
  c->reveal = app.add_subcommand(
      "reveal",
      "Give the students back from summary-anonymous.csv's ids: recomputes each student's "
      "anonymous id of OUT/summary.json with your salt and prints 'ID<TAB>student' for the IDs "
      "given (all without ID). Exit 1 if an ID is no student's.");
  c->reveal->add_option("ID", c->reveal_ids, "anonymous ids (anon-...)");
  c->reveal->add_option("--out", c->reveal_out, "the grading's --out folder (holds summary.json)")
      ->required();
  c->reveal->add_option("--salt", c->reveal_salt, "the salt graded with (--anonymise-salt)");
  c->reveal->add_option("--config", c->reveal_config,
                        "take the salt from this teacher configuration's anonymise_salt");
  return c;
}

std::optional<int> run_class_command(const ClassCommands& c) {
  if (c.merge && c.merge->parsed()) return run_merge(c);
  if (c.zip && c.zip->parsed()) return run_zip(c);
  if (c.reveal && c.reveal->parsed()) return run_reveal(c);
  return std::nullopt;
}

}  // namespace attn::grader

#pragma once
// The bug-injection catalogue (exercises/mutants/; docs/ARCHITECTURE.md,
// "How to add: a misconception"): every mutant is a submission carrying one named
// misconception; `attnlab mutants` grades them all, and the model
// solutions, and prints which property caught which mutant.
//
// The mutants are exercises/mutants/*.py and *.cpp: submissions in an
// exercise's own interface (F1-F4, and the library operations T1, the tiled
// kernel, M1, multi-head attention, and C1, the masks), graded exactly as `attnlab grade`
// grades a student's file. Every one is graded in a forked grader process of its own (RapidCheck's
// state is per process, so threads would share it), `jobs` at a time.

#include <filesystem>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "grading/grade.hpp"

namespace attn::grader {

/// A mutant's metadata, read from the comment lines at the top of its file:
///   # mutant: no_scale            (or // for C++)
///   # exercise: F3
///   # misconception: one sentence
///   # violates: the lemma or section
///   # caught by: the property expected to catch it
///   # key: the misconception key its diagnosis names (misconceptions/)
///   # key parameter: the fitted parameter it names, "scale=1/d_k" (optional)
///   # key note: a remark on the key (optional)
struct MutantInfo {
  std::filesystem::path file;
  std::string name;
  std::string exercise;
  std::string misconception;
  std::string violates;
  std::string caught_by;
  /// A family's key of the misconception catalogue (attn/mis/catalogue.hpp);
  /// empty when the header has no `key:` line.
  std::string key;
  /// The parameter the diagnosis must fit, from `key parameter:` when that
  /// holds a '=' ("scale=1/d_k (scaled twice)" -> "scale=1/d_k"); "" when
  /// parameterless or fitted freely ("epsilon (fitted)").
  std::string key_parameter;
};

/// Reads the metadata of one file. Throws std::runtime_error naming the file
/// and the missing field when a field other than the key's is absent.
MutantInfo read_mutant_info(const std::filesystem::path& file);

/// Every submission mutant directly under `dir` (files named *.py, *.cpp),
/// sorted by file name.
std::vector<MutantInfo> mutant_catalogue(const std::filesystem::path& dir);

struct MutantsOptions {
  GradeOptions grade;                ///< seed, cases, timeouts, interpreter
  std::filesystem::path source_dir;  ///< the checkout (solutions/ below it)
  /// The catalogue; empty: source_dir/exercises/mutants.
  std::filesystem::path catalogue_dir;
  int jobs = 1;                      ///< gradings at once, each in its own process
  bool solutions = true;             ///< also grade the model solutions
  bool verbose = false;              ///< print the report of every unexpected outcome
  /// Check every mutant's diagnoses against the key its header names
  /// (MutantInfo::key): each failed property's diagnosis names the mutant's
  /// key or nothing (a wrong name is a problem), at least one names the key
  /// alone with its parameter, a mutant without a key is a problem, and no
  /// solution is named a misconception.
  bool check_keys = false;
};

/// Grades the catalogue and the model solutions, prints the kill matrix
/// (mutant x property), each mutant's first catching property, the hint the
/// feedback map gives for it, the size (T_q, T_v, d_k, d_v) of its shrunk
/// counterexample, the distribution of those sizes, each failure's
/// diagnosis (diagnosis/diagnosis_stage.hpp) and the diagnosis battery's
/// cost over the catalogue (median and worst, cases and seconds).
/// Returns 0 if every mutant was caught (by its declared property among
/// others) and every solution passed every property, 1 otherwise, 2 for an
/// infrastructure error (a grading that could not run).
int run_mutants(const MutantsOptions& options, std::ostream& out);

}  // namespace attn::grader

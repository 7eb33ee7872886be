#pragma once
// The bug-injection catalogue (exercises/mutants/, DESIGN.md "Bug
// injection"): every mutant is a submission carrying one named
// misconception; `attnlab mutants` grades them all, and the model
// solutions, and prints which property caught which mutant.

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "attn/grader/grade.hpp"

namespace attn::grader {

/// A mutant's metadata, read from the comment lines at the top of its file:
///   # mutant: no_scale            (or // for C++)
///   # exercise: F3
///   # misconception: one sentence
///   # violates: the lemma or section
///   # caught by: the property expected to catch it
struct MutantInfo {
  std::filesystem::path file;
  std::string name;
  std::string exercise;
  std::string misconception;
  std::string violates;
  std::string caught_by;
};

/// Reads the metadata of one file. Throws std::runtime_error naming the file
/// and the missing field when a field is absent.
MutantInfo read_mutant_info(const std::filesystem::path& file);

/// Every mutant under `dir` (files named *.py, *.cpp), sorted by file name.
std::vector<MutantInfo> mutant_catalogue(const std::filesystem::path& dir);

struct MutantsOptions {
  GradeOptions grade;  ///< seed, cases, timeouts, interpreter
  std::filesystem::path source_dir;  ///< the checkout (mutants and solutions)
  int jobs = 1;                      ///< submissions graded at once
};

/// Grades the catalogue and the model solutions, prints the kill matrix,
/// each mutant's first catching property, its hint-worthy misconception and
/// the size of its shrunk counterexample, and the size distribution.
/// Returns 0 if every mutant was caught (by its expected property too) and
/// every solution passed, 1 otherwise, 2 for an infrastructure error.
int run_mutants(const MutantsOptions& options, std::ostream& out);

}  // namespace attn::grader

#pragma once
// The exercise registry: one spec per exercise, read from
// exercises/registry.json (the only place an exercise's id, operation,
// entry names, C++ header and namespace, answers file and bundled files are
// written). Recognition, the C++ build, reproductions, the command line's
// lists, the Python harness's arguments and CMake's harness targets all read
// it; docs/ARCHITECTURE.md, "Add an exercise", lists what else an exercise
// is (its folder exercises/<id>/ and, for C++, its harness file).

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attn/prop/case.hpp"

namespace attn::grader {

/// A bundled file `attnlab grade --bundled` grades with an expected failure.
struct BundledFailure {
  std::string file;      ///< from the source tree, "exercises/F4/post_softmax_mask.py"
  std::string property;  ///< the property that must fail ("row_stochastic")
  std::string why;       ///< one line for the report
};

/// One exercise's spec (a member of exercises/registry.json's "exercises").
struct ExerciseSpec {
  std::string id;       ///< "F3"; its folder is exercises/<id>/
  bool of_the_text = true;  ///< an exercise of section 32.2.8 (F1..F4), else a library operation graded like one
  std::string title;    ///< "Attention with an optional mask"
  std::string section;  ///< "32.2.8 (F3), solution 32.2.9"
  attn::prop::Operation op = attn::prop::Operation::attention;
  /// The protocol ops its harness answers ({"attention_tiled", "attention"} for T1).
  std::vector<std::string> ops;
  /// The operation whose `attnlab check` borrows this exercise's interface
  /// (harness, header, entry names), if any: at most one exercise per operation.
  std::optional<attn::prop::Operation> check_serves;
  /// The exercise also asks for numbers in an answers file, of this form
  /// (answers.hpp: "masked_softmax_with_and_without_shift",
  /// "post_softmax_row_sum"); empty: no answers file.
  std::string answers_form;
  /// Code for this exercise has another's interface and is recognised as
  /// that one ("F3" for F4); its answers file pairs with that code.
  std::string code_recognised_as;
  /// When a file shows both this exercise and these, this one wins (a
  /// multi-head file defines the single-head attention it calls: M1 over F3).
  std::vector<std::string> supersedes;
  struct Python {
    std::vector<std::string> entries;     ///< function names accepted, in order of preference
    std::vector<std::string> companions;  ///< a second function it needs (T1's naive attention)
    std::vector<std::string> recognised_by;  ///< a def of any of these names shows the exercise
    std::vector<std::string> recognised_by_all_of;  ///< defs of all of these, and nothing else graded
  } python;
  /// The protocol ops whose presence in a hello shows the exercise (default: ops).
  std::vector<std::string> protocol_recognised_by;
  struct Cpp {
    std::string header;       ///< in exercises/<id>/, "attention.hpp"; empty: no C++ interface
    std::string ns;           ///< "f3"
    std::vector<std::string> entries;  ///< in ns, "attention"
    std::vector<std::string> uses;     ///< exercises whose headers its header includes ("F3" for F4)
  } cpp;
  struct Bundled {
    std::vector<std::string> solutions;  ///< model solutions, from the source tree
    bool skeletons = false;  ///< exercises/<id>/skeleton.{cpp,py} (and answers_skeleton.json)
    std::vector<BundledFailure> failing;
  } bundled;

  /// "f3::attention" (entries joined by ", ", each qualified), empty without C++.
  std::string cpp_entry() const;
  /// The static library target of its C++ harness, "attnlab_cpp_harness_f3".
  std::string cpp_harness_target() const;
};

/// Every exercise, in the registry's order (F1, F2, F3, F4, T1, M1, C1, B1).
/// Read once from <exercises_dir>/registry.json (attn/grader/paths.hpp);
/// throws std::runtime_error naming the file and the member if it cannot be
/// read or a member is missing, misspelt or names an unknown operation.
const std::vector<ExerciseSpec>& exercise_specs();

/// The spec with this id, nullptr if none (ids are compared exactly).
const ExerciseSpec* find_exercise_spec(const std::string& id);

/// Which graded exercises graded_exercise_ids lists.
enum class ExerciseGroup {
  all,          ///< the text's, then the library operations'
  of_the_text,  ///< the text's exercises (F1, F2, F3, F4, a course's own marked so)
  library,      ///< the library operations graded as pseudo-exercises (T1, M1, C1, B1)
};

/// The graded exercises' ids of the group: the text's first, then the
/// library operations', each in the registry's order (the gradebook's
/// column order).
std::vector<std::string> graded_exercise_ids(ExerciseGroup group = ExerciseGroup::all);

/// "F1, F2, F3, F4 and the library operations T1, M1, C1, B1": what attnlab grades, for messages.
std::string graded_exercises_text();

/// The exercises with an answers file, in the registry's order, joined with
/// `separator` before the last ("F2 or F4" with " or "): for messages.
std::string answers_exercises_text(const std::string& separator = " or ");

/// Why an exercise of the text with this id is not graded ("F5": its answer
/// is prose), from the registry's "not_graded"; nullopt for any other id.
std::optional<std::string> not_graded_reason(const std::string& id);

/// A whole registry file.
struct ExerciseRegistry {
  std::vector<ExerciseSpec> exercises;
  std::vector<std::pair<std::string, std::string>> not_graded;  ///< {id, why}
};

/// Parses a registry (the text of exercises/registry.json); `where` names it
/// in errors. Throws std::runtime_error as exercise_specs does (also for an
/// id given twice, or two exercises serving check's same operation).
ExerciseRegistry parse_exercise_registry(const std::string& text, const std::string& where);

}  // namespace attn::grader

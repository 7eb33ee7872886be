#pragma once
// Which exercise a submission answers, when `--exercise` is not given.
//
// In order, the first rule that applies decides:
// - an explicit comment line `# exercise: F4` (Python) or `// exercise: F4`
//   (C++), as the mutant catalogue writes it;
// - Python: the entry functions it defines at top level:
//   softmax_rows -> F1, masked_softmax -> F2,
//   scaled_dot_product_attention or attention -> F3 (F4 has F3's signature,
//   so an F4 file says so with the comment line or --exercise F4); a file
//   defining the entries of several exercises where one exercise's entry
//   uses (calls, directly or through other functions; comments aside) an
//   entry of every other one is that exercise: an F3 file with the
//   softmax_rows and masked_softmax its attention calls is F3 ("it defines
//   scaled_dot_product_attention, which uses softmax_rows and masked_softmax");
// - C++: the namespace it defines functions in (f1..f4, t1, m1, c1:
//   `namespace f2 {`, or a definition `Matrix f2::masked_softmax(...) {`;
//   a call such as `f2::masked_softmax(S, mask)` in a body defines
//   nothing), else the interface header it includes: softmax_rows.hpp ->
//   F1, masked_softmax.hpp -> F2, attention.hpp -> F3, masked_attention.hpp
//   -> F4; a file defining the entries of several exercises where one
//   entry uses the others' (f3::attention calling the file's own
//   f2::masked_softmax) is that exercise, as for Python ("it defines
//   f3::attention, which uses f2::masked_softmax");
// - an answers file (.json): its "exercise" member (F2 or F4);
// - any other executable: its hello's "exercise" member, else its "ops"
//   (softmax_rows -> F1, masked_softmax -> F2, attention -> F3), read once it
//   has started (recognise_from_hello).
// Comments and string literals do not count for the C++ rules. A file that
// matches several exercises at the deciding rule is ambiguous, one that
// matches none unrecognisable: both are usage errors whose message suggests
// --exercise.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "protocol/hello.hpp"

namespace attn::grader {

struct Recognition {
  enum class Status {
    recognised,    ///< exercise and how are set
    needs_hello,   ///< an executable: call recognise_from_hello once it has said hello
    ambiguous,     ///< message says which exercises matched and suggests --exercise
    unrecognised,  ///< message says what was looked for and suggests --exercise
  };
  Status status = Status::unrecognised;
  std::string exercise;  ///< "F2"
  std::string how;       ///< "it defines masked_softmax()", for the report
  std::string message;   ///< the usage error, when neither recognised nor needs_hello
  /// Every exercise whose entry the file defines, in id order (F1, F2, ...):
  /// for Python, each exercise whose entry function it defines at top level
  /// (an F3 file with its own softmax_rows and masked_softmax defines F1, F2
  /// and F3; set when ambiguous too); for C++, each exercise whose entry it
  /// defines in the exercise's namespace (f2::masked_softmax and
  /// f3::attention: F2 and F3; its build puts the interface headers of every
  /// exercise it includes on the include path, cpp_build.hpp), set when
  /// ambiguous too; for a `# exercise:` line, an answers file or an
  /// executable, only `exercise`. Empty when nothing was recognised.
  std::vector<std::string> defines;
};

/// Recognises the exercise of `file` from its text (never runs it).
Recognition recognise_exercise(const std::filesystem::path& file);

/// The exercises whose interface header (exercises/FN/*.hpp, by its file
/// name: masked_softmax.hpp -> F2) the C++ sources among `files` include,
/// comments aside, in id order. Other files, and files that cannot be
/// read, add none. For the build (cpp_build.hpp toolchain_for): a file of
/// F2 and F3 includes both headers whichever exercise it is graded as.
std::vector<std::string> included_interfaces(const std::vector<std::filesystem::path>& files);

/// Recognises the exercise of a protocol-speaking executable from its hello.
Recognition recognise_from_hello(const Hello& hello);

/// For `attnlab check`: whether the Python file `file` is a kernel of the
/// operation batched_attention, which no exercise has. With `entry`, when
/// the parameters of `def entry(...)` include both `causal` and `alignment`
/// (the keywords only batched_attention passes); without, when it defines
/// batched_attention() or grouped_query_attention() at top level (helpers
/// beside it, a single-head attention() included, do not count). Returns
/// how it was recognised ("it defines batched_attention()"), else nullopt.
/// Never runs the file.
std::optional<std::string> recognise_batched_kernel(const std::filesystem::path& file,
                                                    const std::string& entry);

}  // namespace attn::grader

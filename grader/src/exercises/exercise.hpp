#pragma once
// The exercises the grader knows (section 32.2.8): which operation a
// submission implements, which properties grade it, how many points each is
// worth, and what a submission defines. The points tables live beside the
// statements, in exercises/FN/points.json, so a teacher reads and edits them
// in one place.
//
//   F1  softmax_rows(S)                     C++ f1::softmax_rows, softmax_rows.hpp
//   F2  masked_softmax(S, mask) + answers   C++ f2::masked_softmax, masked_softmax.hpp
//   F3  scaled_dot_product_attention(...)   C++ f3::attention, attention.hpp
//   F4  the corrected F3 function + answers C++ f4::attention, masked_attention.hpp
//   F5  prose (an experiment protocol): not graded by attnlab

#include <map>
#include <string>
#include <vector>

#include "attn/prop/case.hpp"
#include "attn/prop/fully_forbidden.hpp"

namespace attn::prop {
struct Property;  // attn/prop/property.hpp: complete where an Exercise is made or copied
}  // namespace attn::prop

namespace attn::grader {

/// The property id of the answers file's check in points tables and verdicts.
inline constexpr const char* kAnswersItem = "answers";

struct Exercise {
  std::string id;       ///< "F3"
  std::string title;    ///< "Attention with an optional mask"
  std::string section;  ///< "32.2.8 (F3), solution 32.2.9"
  attn::prop::Operation op = attn::prop::Operation::attention;
  /// The properties in report order.
  std::vector<attn::prop::Property> properties;
  /// Points per property id (the points table), the answers item included;
  /// an item missing here is worth 0.
  std::map<std::string, double> points;
  /// Python function names accepted, in order of preference.
  std::vector<std::string> python_entry_points;
  /// C++: the interface header a submission includes (in exercises/FN/) and
  /// the function it defines.
  std::string cpp_header;  ///< "softmax_rows.hpp"
  std::string cpp_entry;   ///< "f1::softmax_rows"
  /// The form of the numbers the exercise also asks for, given in an
  /// answers file (answers.hpp, kShiftAnswers or kRowSumAnswers) and graded
  /// as one more item, kAnswersItem (F2, F4); empty: none.
  std::string answers_form;
  /// Whether the exercise asks for an answers file (answers_form not empty).
  bool has_answers() const { return !answers_form.empty(); }
  /// The answer expected for a query row whose every key is forbidden: the
  /// text's error (Lemma 2) for every exercise; a kernel checked by
  /// `attnlab check --fully-forbidden nan|zeros` keeps its own (the
  /// properties hold it to it, the diagnosis takes it as the definition's).
  attn::prop::FullyForbidden fully_forbidden = attn::prop::FullyForbidden::error;

  /// Points of every property plus, if has_answers(), the answers item.
  double max_points() const;
};

/// The exercise with this id (one of graded_exercise_ids: the text's F1..F4, the
/// library operations T1, M1, C1, B1 graded as pseudo-exercises, a course's
/// own), read from the registry and its points table. Throws std::invalid_argument for an id attnlab does not
/// grade (the message says which ids it grades, and shows the id given
/// with its control characters escaped, sandbox/escaped_name.hpp: an id
/// "F3\u0000" read from JSON is "F3%00", not a "F3" that looks known; for
/// F5, that it is prose)
/// and std::runtime_error if its points table cannot be read.
Exercise load_exercise(const std::string& id);

/// The pseudo-exercise `attnlab check` runs on a kernel of operation `op`:
/// every property that applies to it (attn::prop::kernel_properties_for,
/// with the kernel's convention for a fully forbidden row), 1 point each
/// (check shows no points). Its id is the exercise whose harness and C++
/// interface serve `op` (attention F3, masked_softmax F2, softmax_rows F1,
/// attention_tiled T1, multi_head_attention M1, attention_backward B1); for
/// an operation no exercise serves (a row of unserved_kernels in
/// exercise.cpp: batched_attention), the id is the operation's name (the
/// Python harness's --exercise NAME, the row's entry names; no C++
/// interface, so cpp_header is empty). Throws
/// std::invalid_argument for an operation check does not take.
Exercise kernel_exercise(attn::prop::Operation op,
                         attn::prop::FullyForbidden fully_forbidden =
                             attn::prop::FullyForbidden::error);

}  // namespace attn::grader

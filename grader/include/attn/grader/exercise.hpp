#pragma once
// The exercises the grader knows (section 32.2.8): which operation a
// submission implements, which properties grade it and how many points each
// is worth. The points tables live beside the statements, in
// exercises/FN/points.json, so a teacher reads and edits them in one place.

#include <map>
#include <string>
#include <vector>

#include "attn/prop/case.hpp"
#include "attn/prop/property.hpp"

namespace attn::grader {

struct Exercise {
  std::string id;       ///< "F3"
  std::string title;    ///< "Attention with an optional mask"
  std::string section;  ///< "32.2.8 (F3), solution 32.2.9"
  attn::prop::Operation op = attn::prop::Operation::attention;
  /// The properties in report order.
  std::vector<attn::prop::Property> properties;
  /// Points per property id (the points table); a property missing here is worth 0.
  std::map<std::string, double> points;
  /// Python function names accepted, in order of preference.
  std::vector<std::string> python_entry_points;

  double max_points() const;
};

/// The exercise with this id ("F1".."F4"), read from the registry and its
/// points table. Throws std::invalid_argument for an unknown id and
/// std::runtime_error if its points table cannot be read.
Exercise load_exercise(const std::string& id);

/// The ids of every graded exercise, in order.
std::vector<std::string> exercise_ids();

}  // namespace attn::grader

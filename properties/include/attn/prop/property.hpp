#pragma once
// A property: a statement of the text checked on generated cases.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "attn/prop/case.hpp"
#include "attn/prop/subject.hpp"
#include "attn/prop/verdict.hpp"

namespace attn::prop {

/// What a generator may assume about the subject it feeds.
struct GenConfig {
  Operation op = Operation::attention;
  Precision precision;  ///< inputs are rounded to this type
};

struct Property {
  std::string id;      ///< stable identifier, "row_stochastic"
  std::string title;   ///< what it claims
  std::string source;  ///< the statement of the text it checks
  Operation op = Operation::attention;
  /// Cases for this property.
  std::function<rc::Gen<Case>(const GenConfig&)> generator;
  /// nullopt if the subject's answer satisfies the property on c.
  std::function<std::optional<Failure>(Subject&, const Case&)> check;
  /// The statement is about the weights A: skipped for subjects that return
  /// O only (Subject::returns_weights() false) and for tiled attention.
  bool needs_weights = false;
  /// When not empty, the property runs exactly these cases, in order, instead
  /// of generated ones (the text's worked examples; visible tests).
  std::vector<Case> fixed_cases;
};

/// Parameters of one property run.
struct RunConfig {
  std::uint64_t seed = 20261129;
  int cases = 100;
  int max_size = 100;
  bool shrink = true;
};

/// Runs p on subject s with RapidCheck (generation, shrinking) and returns
/// the verdict with the shrunk counterexample. Never throws for a failing
/// subject; generator trouble is reported in Verdict::error.
Verdict run_property(const Property& p, Subject& s, const RunConfig& cfg);

/// The default number of cases, scaled by the environment variable
/// ATTNLAB_CASES_SCALE (a positive number; 100 for a deep run).
int default_case_count(int base = 100);

}  // namespace attn::prop

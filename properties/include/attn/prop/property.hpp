#pragma once
// A property: a statement of the text checked on generated cases.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "attn/prop/case.hpp"
#include "attn/prop/run_config.hpp"
#include "attn/prop/subject.hpp"
#include "attn/prop/verdict.hpp"

namespace attn::prop {

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
  /// What the statement is about: a failure of a refusal property on its
  /// faulty input is the refusal's, not a refused valid input's.
  PropertyKind kind = PropertyKind::value;
  /// The hint a failure shows when its shape names nothing more precise.
  PropertyHint hint;
  /// The fixed edge cases it runs on every seed after the random ones
  /// (properties/src/edge_cases.hpp says what each holds and for which
  /// operations): only properties that accept any valid case of their
  /// operation can take them.
  struct EdgeCases {
    bool lowest_logits = false;  ///< allowed logits at the type's lowest levels; -inf in S
    bool long_rows = false;      ///< up to 2000 keys, nearly uniform and rising logits
    bool non_finite = false;     ///< a NaN and an Inf input, to refuse or carry through
  } edge_cases;
};

/// Runs p on subject s with RapidCheck (generation, shrinking) and returns
/// the verdict with the shrunk counterexample. Never throws for a failing
/// subject; generator trouble is reported in Verdict::error.
Verdict run_property(const Property& p, Subject& s, const RunConfig& cfg);

/// Whether `p` holds on the case `c` for `s` judged with the bounds of
/// `precision` instead of those of the precision `s` declares (s answers
/// as it does; only Subject::precision() differs): true only when the check
/// passes having judged the case itself, not left it to another property
/// (one fault, one charge; properties/README.md). For feedback that states
/// what the evidence shows: a failure of a float64 subject that holds at
/// float32 is a departure at float32's rounding level (reference/TOLERANCE.md,
/// the bound is the declared unit roundoff's), not a logic error. Sends `c`
/// (and a metamorphic property's related case) to `s` again; a check that
/// throws does not hold.
bool holds_at_precision(const Property& p, Subject& s, const Case& c, const Precision& precision);

/// The default number of cases, scaled by the environment variable
/// ATTNLAB_CASES_SCALE (a positive number; 100 for a deep run).
int default_case_count(int base = 100);

}  // namespace attn::prop

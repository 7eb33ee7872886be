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

/// The shapes a run covers: what the subject takes (attnlab check
/// --max-seq, --head-dims, --tile-multiple). Generated cases and fixed edge
/// cases of attention, attention_tiled, masked_softmax and softmax_rows stay
/// inside it; a case outside it is never sent (an edge case outside is
/// skipped). Refusal cases (a d_k mismatch, a fully forbidden row) keep their
/// valid part inside it.
struct ShapeSpace {
  /// Longest T_q and T_v generated. From 64 on, one case in sixteen is a
  /// "long rows" case: T_q up to 4, T_v from 64 to max_seq, head dims from 8
  /// to 256 (generators.hpp).
  Index max_seq = 256;
  /// The d_k and d_v the subject takes, ascending; empty: any (1 to 16 in the
  /// small cases, 8 to 256 in the long ones).
  std::vector<Index> head_dims;
  /// T_q and T_v are multiples of it (a kernel that takes whole tiles only).
  Index tile_multiple = 1;

  /// Whether T_q x T_v logits with head dims d_k, d_v are inside (d_k, d_v
  /// of 0 are not checked: softmax operations have none).
  bool admits(Index T_q, Index T_v, Index d_k, Index d_v) const;
  /// Whether the case's shapes are inside (always true for the operations
  /// it does not constrain).
  bool admits(const Case& c) const;
  /// "T_q, T_v up to 2048 (multiples of 64); d_k, d_v in {64, 128}".
  std::string describe() const;
};

/// What a generator may assume about the subject it feeds.
struct GenConfig {
  Operation op = Operation::attention;
  Precision precision;  ///< inputs are rounded to this type
  ShapeSpace shapes;    ///< the shapes to stay inside
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
  ShapeSpace shapes;  ///< the shapes the generated and edge cases cover
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

#pragma once
// Pieces shared by the property checks (private to properties/).

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "attn/prop/case.hpp"
#include "attn/prop/outcome.hpp"
#include "attn/prop/property.hpp"
#include "attn/prop/subject.hpp"
#include "attn/prop/verdict.hpp"
#include "attn/ref/error_bound.hpp"
#include "attn/ref/multi_head_bound.hpp"
#include "attn/ref/oracle.hpp"

namespace attn::prop::detail {

/// T_q, T_v and d_v of a case.
Index T_q(const Case& c);
Index T_v(const Case& c);

/// Key j is forbidden for query i: masked, or a -Inf logit of a softmax case.
bool forbidden(const Case& c, Index i, Index j);

/// What a property reads of an answer.
enum class Reads {
  weights,  ///< A only
  all       ///< A (when expected), O, logsumexp: whatever the operation returns
};

/// A failure unless the subject returned a result (not a refusal or a
/// fault) whose parts that the property `reads` have the right shapes:
/// A is T_q x T_v (Lemma 1; when weights are expected), for attention O is
/// T_q x d_v, for tiled attention logsumexp is T_q x 1. This is the owner
/// of answering's test (answering_owner); the other properties use judge_parts.
std::optional<Failure> require_answer(const Outcome& o, const Case& c, const Subject& s,
                                      Reads reads = Reads::all);

/// One fault, one charge (properties/README.md): the property that charges
/// a refused valid input and an answer of the wrong shape. score_shape for
/// attention (its cases are any valid case, with the same edge cases as the
/// value properties), oracle_agreement for every other operation.
const char* answering_owner(Operation op);

/// The parts of a result a property may judge: those it reads that the
/// operation returns (A only when weights_expected) with their shapes of
/// Lemma 1 (A T_q x T_v, O T_q x d_v or the operation's, logsumexp T_q x 1).
struct Parts {
  bool A = false, O = false, logsumexp = false;
  bool any() const { return A || O || logsumexp; }
};

/// What property `property` may judge of the answer o to the valid case c:
/// - a fault (crash, timeout, malformed reply): `failure` ("no answer"),
///   for every property;
/// - a refusal, or a result none of whose parts read is well shaped: for
///   answering_owner(c.op), `failure` (require_answer); for any other
///   property the case is `left` to the owner (leave_to), not judged;
/// - otherwise the well-shaped `parts` it reads: a wrong-shaped O leaves A
///   judged, and the reverse (the shape is the owner's to charge; the owner
///   fails on it through `failure` instead).
struct Judged {
  std::optional<Failure> failure;
  bool left = false;
  Parts parts;
  /// True when the property must return `failure` now (nullopt if left).
  bool stop() const { return failure.has_value() || left; }
};
Judged judge_parts(const Outcome& o, const Case& c, const Subject& s, const std::string& property,
                   Reads reads = Reads::all);

/// Marks the case being checked as left to property `owner`, which charges
/// it (`why`: "a refused valid input", "a non-finite answer"); `example` is
/// what the subject did ("refused with ValueError: ..."). The runner tags
/// such cases (left_tag, counted in Verdict::regimes and said in the
/// verdict's block) and fails a property that judged none of its cases
/// (nothing judged is no pass).
void leave_to(const std::string& owner, const std::string& why, const std::string& example);
/// The mark of the case being checked (owner and why, and the example), if any.
struct LeftMark {
  std::string owner, why, example;
};
const std::optional<LeftMark>& left_mark();
/// Clears the mark, and the refusal mark below, before a case is checked.
void clear_left_mark();
/// Marks the case being checked as judged by a refusal alone: its input
/// (NaN, Inf) is one that refusing answers rightly, which says nothing of
/// the values the property judges. The runner counts such a case as judged
/// only beside a case judged on an answer: a subject that refuses every
/// input (a skeleton) has judged nothing, and fails (nothing judged is no
/// pass).
void mark_judged_by_refusal();
bool judged_by_refusal();
/// The regime tag of a case left to another property: "not judged here: a
/// refused valid input, charged to score_shape alone" (kLeftTag + ...).
inline constexpr const char* kLeftTag = "not judged here: ";
std::string left_tag(const LeftMark& mark);
/// A permutation as text, "[2, 0, 1]": entry k is where row k goes.
std::string perm_text(const std::vector<Index>& p);
/// For a metamorphic comparison that compared no entry: leave_to
/// oracle_agreement ("a non-finite answer") when the parts compared were
/// well shaped (every entry NaN or Inf), else to answering_owner(op).
void leave_unjudged(bool well_shaped, Operation op);

/// The answer to c carries the weights A: not for tiled attention, nor for a
/// subject that declares it returns O only.
bool weights_expected(const Subject& s, const Case& c);

/// The oracle's weights for a multi_head_attention case (its heads and W_O).
ref::MultiHeadWeights multi_head_weights(const Case& c);

/// The oracle's answer and the error bound for the subject's precision
/// (multi_head_attention: O and bound_O only).
struct Expected {
  ref::RealMatrix A, O, logsumexp;  ///< logsumexp: T_q x 1 (attention ops)
  ref::DMatrix bound_A, bound_O, bound_logsumexp;
  std::vector<double> bound_row_sum;  ///< per query row (attention and softmax ops)
  ref::BoolMatrix allowed;
};
/// Throws ref::OracleRefusal when the case has no answer (the generators avoid that).
Expected expected_for(const Case& c, const Precision& p);

ref::PrecisionModel precision_model(const Precision& p);

/// A failure at the worst entry if any |actual - exact| exceeds its bound, or
/// an entry is NaN or Inf. `name` is "A" or "O".
/// When `max_ratio` is given it receives the largest error/bound ratio.
/// `skip_rows` (one flag per row of `actual`), when given, names rows not compared.
std::optional<Failure> compare_with_bound(const std::string& name, const DMatrix& actual,
                                          const ref::RealMatrix& exact, const DMatrix& bound,
                                          double* max_ratio = nullptr,
                                          const std::vector<bool>* skip_rows = nullptr);

/// The sum of term(0), ..., term(n - 1) in ref::Real (50 digits, which hold
/// every double exactly: reference/include/attn/ref/real.hpp), added in that
/// order: a row of A (term(j) = Real(A(i, j))), a row of A times a column of
/// V, a row of Q times a row of K. `term` maps an Index in [0, n) to a
/// ref::Real. The one exact row sum of the property checks.
template <class Term>
ref::Real exact_sum(Index n, const Term& term) {
  ref::Real sum = 0;
  for (Index j = 0; j < n; ++j) sum += term(j);
  return sum;
}

/// The exact sum of row i of A (exact_sum of its entries, left to right).
inline ref::Real exact_row_sum(const DMatrix& A, Index i) {
  return exact_sum(A.cols(), [&](Index j) { return ref::Real(A(i, j)); });
}

/// row_stochastic's judgment of row i of an answer's A (T_q x T_v) to case c
/// (F1, sections 32.2.8-32.2.9; one fault, one charge: properties/README.md),
/// with `bound` the row's rounding bound on its sum (Expected::bound_row_sum,
/// reference/TOLERANCE.md "Row sums"). A row holding a NaN or Inf is
/// oracle_agreement's and one holding a nonzero forbidden weight exact_zeros':
/// not judged. A judged row fails on its first negative weight, else when
/// |exact sum - 1| > bound (or is NaN). Shared by row_stochastic and
/// masked_after_softmax_rows, so that both read a row alike.
struct RowJudgment {
  enum class Kind {
    non_finite,        ///< not judged: a NaN or Inf in the row
    forbidden_weight,  ///< not judged: all finite, a nonzero forbidden weight
    negative_weight,   ///< fails: A(i, column) < 0, the first such
    sum_off,           ///< fails: |sum - 1| = error > bound
    passes             ///< |sum - 1| = error <= bound
  };
  Kind kind = Kind::passes;
  Index column = -1;  ///< negative_weight: the first negative entry's column
  ref::Real sum = 0;  ///< sum_off, passes: the row's sum (exact_sum)
  double error = 0;   ///< sum_off, passes: |sum - 1| rounded to double
  bool judged() const { return kind != Kind::non_finite && kind != Kind::forbidden_weight; }
  bool fails() const { return kind == Kind::negative_weight || kind == Kind::sum_off; }
};
RowJudgment judge_row_stochastic(const Case& c, const DMatrix& A, Index i, double bound);

/// One fault, one charge (properties/README.md): per row of the answer o's
/// A (T_q x T_v; all false unless parts.A, c has a mask, and c.op is
/// attention, tiled attention or a softmax), true when the row is exactly
/// what masking after the softmax gives, so row_stochastic's to charge and
/// not oracle_agreement's: row_stochastic fails it on its sum
/// (judge_row_stochastic with e.bound_row_sum[i] gives sum_off: finite,
/// >= 0, its forbidden weights 0, |sum - 1| above the bound), and every
/// allowed weight agrees, within the bound, with the oracle's softmax over
/// every key (c's mask ignored: expected_for at precision p, same tier and
/// bounds), so a row of zeros qualifies only where that softmax's allowed
/// weights are 0 within their bound (a forbidden key holds all but an
/// underflowing share of the mass); when parts.O and the
/// operation takes Q, K, V, O's row agrees within that computation's O bound
/// with the same zeroed row times V. Uses the 50-digit oracle (reference/).
std::vector<bool> masked_after_softmax_rows(const Case& c, const Outcome& o, const Expected& e,
                                            const Parts& parts, const Precision& p);

/// compare_with_bound for a batched_attention answer (O stacked, Case::Batched):
/// the failure names the head, "O[n=0, h=2](1, 0) differs ... (batch n = 0,
/// query head h = 2, which attends with kv head 1, query row 1)", its worst
/// entry is in that head's T_q x d_v slice and marked_row is the stacked row.
std::optional<Failure> compare_batched(const Case& c, const DMatrix& actual,
                                       const ref::RealMatrix& exact, const DMatrix& bound,
                                       double* max_ratio = nullptr);

/// How a related case's answer corresponds to the original's: entry (i, j)
/// of the related answer should equal entry (rows[i], cols[j]) of the
/// original. Empty vectors mean the identity.
struct EntryMap {
  std::vector<Index> rows;
  std::vector<Index> cols;
};

/// A metamorphic comparison: `related` (answer to a transformed case) against
/// `original` mapped through m. The tolerance at each entry is the sum of both
/// error bounds plus the exact difference of the two oracle values (non-zero
/// only when the transformed inputs had to be rounded). An entry that is NaN
/// or Inf in either answer is not compared (a non-finite answer is
/// oracle_agreement's to charge); `judged`, when given, is increased by the
/// number of entries compared; `max_ratio`, when given, receives the largest
/// difference/tolerance ratio.
std::optional<Failure> compare_related(const std::string& name, const DMatrix& original,
                                       const DMatrix& related, const EntryMap& m,
                                       const ref::RealMatrix& exact_original,
                                       const ref::RealMatrix& exact_related,
                                       const DMatrix& bound_original, const DMatrix& bound_related,
                                       Index* judged = nullptr, double* max_ratio = nullptr);

/// The shapes of the property run in force on this thread (run_property sets
/// them; the default ShapeSpace outside a run).
const ShapeSpace& shapes_in_force();

/// Sets the shapes in force for its lifetime (runner.cpp).
class ShapesInForce {
 public:
  explicit ShapesInForce(const ShapeSpace& shapes);
  ~ShapesInForce();
  ShapesInForce(const ShapesInForce&) = delete;
  ShapesInForce& operator=(const ShapesInForce&) = delete;

 private:
  const ShapeSpace* saved_;
};

/// True when a case a property derives (a transformed or a deleted-keys
/// case) is outside the shapes in force: the property must not send it, and
/// the case it derives from is marked as not judged (not_judged()).
bool outside_shapes(const Case& c);
/// Whether outside_shapes was true since the last clear_not_judged().
bool not_judged();
void clear_not_judged();

/// Runs both cases and compares A (and O for attention) through the maps:
/// the parts well shaped in both answers (judge_parts), their finite
/// entries (compare_related). A refusal of either case, or nothing left to
/// compare, leaves the case to its owner (leave_to); a fault fails.
std::optional<Failure> check_related(Subject& s, const Case& original, const Case& related,
                                     const EntryMap& map_A, const EntryMap& map_O,
                                     const std::string& relation);

/// nullopt if o answers c usably and correctly: the well-shaped parts
/// (judge_parts, as `property`: a refusal or a wrong shape fails only the
/// owner, answering_owner) of A, O and logsumexp, as the operation returns
/// them, agree with the oracle within the error bound for the subject's
/// precision (compare_with_bound). A's finite forbidden entries are not
/// compared: they are exact_zeros' to judge (Lemma 2), and O's bound on a
/// row grows by what its nonzero forbidden weights add to it,
/// sum_j |A_ij| |V_jl| over the forbidden j (exact_zeros' too), so a tiny
/// nonzero there is charged once. A NaN or Inf anywhere is charged here.
/// A mask-building case is only checked for shape.
/// `record` (optional) receives, per compared output, its name, the largest
/// error/bound ratio and the number of entries (bound_stats.hpp).
using RatioRecorder = std::function<void(const char* name, double ratio, Index entries)>;
std::optional<Failure> check_answer(const Subject& s, const Case& c, const Outcome& o,
                                    const RatioRecorder& record = {},
                                    const std::string& property = "oracle_agreement");

/// Sort order of keys: the permutation that sorts `keys` (stable).
std::vector<Index> argsort(const std::vector<double>& keys);

/// nullopt if o is a refusal (of type expected_type, when that is not
/// empty); otherwise a failure saying the subject should have refused `why`.
std::optional<Failure> require_refusal(const Outcome& o, const std::string& expected_type,
                                       const std::string& why);

/// As require_refusal on `o`, the answer to `faulty`, and then the valid case
/// the faulty one was made from must be answered with a result: a subject
/// that crashes or returns nothing on valid input does not pass a refusal
/// property. The valid case's values and shapes are not judged here (the
/// value and shape properties judge them), so a wrong number is not charged
/// to the refusal as well; a refused valid case leaves the case to the owner
/// of answering (answering_owner, leave_to), which charges it, so a subject
/// that refuses every input (a skeleton) judges nothing and earns nothing.
/// The first failure shows `faulty` (Failure::shown); the second's outcome
/// is the answer to `valid` (described as `valid_what` in the summary, which
/// names the refused input `why` in one clause), and both Failure::answered
/// and Failure::shown are `valid`: the report's counterexample is then the
/// case that was not answered.
std::optional<Failure> require_specific_refusal(
    Subject& s, const Case& faulty, const Outcome& o, const std::string& expected_type,
    const std::string& why, const Case& valid,
    const std::string& valid_what = "the valid case it was made from");

/// "Q(0, 0) = nan" when c holds a NaN or Inf input (NaN or Inf in Q, K, V
/// or X; NaN or +Inf in S; -Inf in S means forbidden, not a bad input);
/// nullopt when every input is valid. The generators make only valid cases;
/// the fixed edge cases (edge_cases.hpp) make such inputs on purpose.
std::optional<std::string> non_finite_input(const Case& c);

/// For a case with a NaN or Inf input (`what`, from non_finite_input): a
/// refusal passes, and so does a result with NaN or Inf somewhere in what it
/// returns (the bad value reached the answer); a result whose entries are all
/// finite swallowed it and fails, as does a fault (section 32.2.7: inputs are
/// finite, and a NaN must not vanish into a plausible answer).
std::optional<Failure> check_non_finite_answer(const Outcome& o, const std::string& what);

/// Attaches the outcome to a failure (for the report).
std::optional<Failure> with_outcome(std::optional<Failure> f, const Outcome& o);

}  // namespace attn::prop::detail

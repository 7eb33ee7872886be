#pragma once
// Pieces shared by the properties of the backward pass (private to
// properties/): the answer's shapes, the oracle's gradients with their
// a-priori bound (reference/TOLERANCE.md, "The backward pass"), and the
// comparisons, written once for dQ, dK and dV.

#include <optional>
#include <string>
#include <vector>

#include "attn/prop/case.hpp"
#include "attn/prop/outcome.hpp"
#include "attn/prop/subject.hpp"
#include "attn/prop/verdict.hpp"
#include "attn/ref/backward_bound.hpp"
#include "attn/ref/oracle_backward.hpp"
#include "check_util.hpp"

namespace attn::prop::detail {

/// A failure unless o is a result whose dQ is T_q x d_k, dK T_v x d_k and
/// dV T_v x d_v (a refusal or a fault is a failure too, with its words).
std::optional<Failure> require_gradients(const Outcome& o, const Case& c);

/// The oracle's gradients of an attention_backward case (50 digits,
/// exact_attention_backward, the text's 1/sqrt(d_k)) and their bound for
/// the subject's precision (attention_backward_error_bound); for a tiled
/// case (tile_q, tile_k > 0) the forward it reads rescales once per key tile
/// after the first (TOLERANCE.md, (2')). Throws ref::OracleRefusal when the
/// case has no answer (a fully forbidden row).
struct ExpectedGradients {
  ref::ExactGradients exact;
  ref::AttentionBackwardBound bound;
};
ExpectedGradients expected_gradients(const Case& c, const Precision& p);

/// The keys no query may attend (every entry of their mask column true):
/// their dK and dV rows are exactly 0 (backward_exact_zeros judges them).
std::vector<Index> keys_forbidden_to_all(const Case& c);

/// The gradients' names and their matrices in an outcome, an exact answer
/// or a bound, in the order dQ, dK, dV.
inline constexpr const char* kGradientNames[3] = {"dQ", "dK", "dV"};
const DMatrix& gradient(const Outcome& o, int which);
const ref::RealMatrix& gradient(const ref::ExactGradients& x, int which);
const DMatrix& gradient(const ref::AttentionBackwardBound& b, int which);

/// dQ, dK and dV of o against the oracle within the bound
/// (compare_with_bound), the failure with the largest error/bound ratio
/// first; the rows of keys forbidden to every query are not compared (one
/// fault, one charge: backward_exact_zeros judges them). `record` receives
/// each gradient's largest ratio (bound_stats.hpp).
std::optional<Failure> compare_gradients(const Case& c, const Outcome& o,
                                         const ExpectedGradients& e,
                                         const RatioRecorder& record = {});

/// A metamorphic comparison of the gradients (compare_related on each):
/// `related`'s dQ row i against `original`'s row q_rows[i], its dK and dV
/// row j against row k_rows[j] (empty: the identity); each entry may differ
/// by both bounds plus the exact difference of the two oracle values.
/// `record` receives each gradient's largest difference/tolerance ratio.
std::optional<Failure> compare_related_gradients(const Outcome& original, const Outcome& related,
                                                 const std::vector<Index>& q_rows,
                                                 const std::vector<Index>& k_rows,
                                                 const ExpectedGradients& e_original,
                                                 const ExpectedGradients& e_related,
                                                 const RatioRecorder& record = {});

/// Records a backward property's largest error/bound ratio on case c as
/// `what` (bound_stats.hpp), with the subject's precision and the case's tags.
void record_backward_ratio(const Subject& s, const Case& c, const std::string& what, double ratio,
                           Index entries);

/// Runs both cases (unless one is outside the shapes in force,
/// outside_shapes) and compares their gradients (compare_related_gradients);
/// a failure names `relation` and shows the related case's answer.
std::optional<Failure> check_related_gradients(Subject& s, const Case& original, const Case& related,
                                               const std::vector<Index>& q_rows,
                                               const std::vector<Index>& k_rows,
                                               const std::string& relation);

}  // namespace attn::prop::detail

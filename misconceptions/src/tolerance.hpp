#pragma once
// How close a subject's answer must be to a model's to count as the model's
// answer, and how far two models must be apart to be told apart (private).
//
// The tolerance follows the error-bound model of reference/TOLERANCE.md,
// restated for an arbitrary pipeline (the definition's bound is evaluated
// from the oracle and does not apply to a mistaken computation): per query
// row, the exponentials' arguments are off by at most
//   u (W + E)   (W: the largest |x_j| = |L_j - m| over exponentials that do
//               not underflow; E: the logits' own error in units of u,
//               (d_k + 4) max_j sum_r |Q_ir K_jr| / scale for computed logits,
//               0 for given logits),
// the normaliser adds gamma_{n}, the quotient 2u; all times kTolFactor
// (TOLERANCE.md's safety factor 2 times 2 for exp within one ulp and the
// summation order of a different implementation). Beyond a relative 1/4 the
// analysis says nothing and the tolerance is +Inf (no claim on that row).
// u is the larger of the model's and the subject's declared unit roundoff.

#include "attn/mis/model.hpp"

namespace attn::mis::detail {

inline constexpr double kTolFactor = 4.0;

/// A tolerance that marks an entry the model leaves undetermined: any answer
/// there agrees, NaN or a number (what code does at a 0/0 that the mistake
/// causes, e.g. a column with nothing allowed under wrong_axis, is not the
/// mistake's: NaN, or 0 after a guard). Such an entry never tells two models
/// apart and never counts as a claim.
inline constexpr double kAnyAnswer = -1.0;

/// Relative tolerance of a row's weights (see above); n = terms summed.
double row_relative_tolerance(double u, double W, double E, double n);

/// Absolute tolerance of a row's logsumexp (TOLERANCE.md (7), restated).
double lse_tolerance(double u, double W, double E, double n, double lse);

/// The subject's outcome agrees with the prediction on case c (what is
/// compared: A for the softmax operations and attention when the subject
/// returns weights; O for attention, tiled and multi-head; logsumexp for
/// tiled; the mask, exactly, for the mask builders). NaN agrees only with
/// NaN, an infinity only with the same infinity. A fault that kept a
/// wrong-shaped answer is read as that answer.
bool agrees(const Outcome& subject, const Prediction& p, const Case& c, bool returns_weights);

/// The two predictions cannot both be met by one outcome: on some compared
/// entry they differ by more than `factor` times the larger tolerance (or in
/// NaN/Inf pattern, shape, or refusal versus answer). A is compared only
/// when the subject returns it (`returns_weights`): for a subject that
/// returns O alone, two models that differ only in A are one model.
bool separated(const Prediction& a, const Prediction& b, const Case& c, double factor,
               bool returns_weights);

/// A model computed in a narrower type (has_separation_tol) whose own
/// answer is off the definition `def` by more than `factor` times the
/// declared bound on some entry (its a-priori tolerance may be +Inf there):
/// a subject that computes in that type departs from the definition in that
/// output too, by the type's rounding. False when, on case c, the model's
/// answer is so off `def` in some compared output (A, O or logsumexp) while
/// the subject's answer there agrees with `def` within the declared bound:
/// the subject is exact where the narrow type could not be,
/// so its departures elsewhere are not that type's rounding (a logsumexp
/// off by a constant with O exact is no float16 computation). True for every
/// other model (for them agreement already implies it), for refusals and
/// cases without a claim.
bool departs_where_separated(const Outcome& subject, const Prediction& model,
                             const Prediction& def, const Case& c, bool returns_weights,
                             double factor);

}  // namespace attn::mis::detail

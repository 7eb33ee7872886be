#pragma once
// The parameterised attention computation behind most models (private).
//
// One written-out evaluation of section 32.2's pipeline (logits, mask,
// shift, exponentials, normaliser, weights, outputs; the online form of
// attention_tiled; the heads of multi-head attention) where every step a
// known mistake changes is a knob. Knobs at their defaults give the
// definition. Every arithmetic result is rounded to the model's arithmetic.

#include <optional>

#include "attn/mis/model.hpp"

namespace attn::mis::detail {

/// True for the operations that take X and the heads' projections
/// (input::projections: a layer, whose rows of X are queries and keys at
/// once and whose heads' outputs are joined by W_O).
inline bool takes_projections(Operation op) {
  return (attn::prop::operation_spec(op).inputs & attn::prop::input::projections) != 0;
}

/// fixed_width: 1/sqrt(Knobs::scale_width), a width written into the code
/// (d_k = 64 of a configuration) whatever the inputs' d_k.
enum class Scale { sqrt_dk, none, dk, sqrt_dv, sqrt_Tv, sqrt_dmodel, times_sqrt_dk, fixed_width };
enum class MaskUse {
  neg_inf,            ///< forbidden logits -inf before the softmax (definition)
  finite_fill,        ///< forbidden logits = fill
  additive_fill,      ///< forbidden logits = S + fill (an additive mask: S + mask * -1e4, finfo.min biases)
  post_zero,          ///< softmax over every key, forbidden weights zeroed after
  post_renorm,        ///< as post_zero, then each row divided by its new sum (+ mult_eps)
  fill_zeroed,        ///< forbidden logits = fill, then their weights zeroed after the softmax (no renormalisation)
  multiplicative,     ///< softmax(S * keep) * keep / (sum + mult_eps)  (AllenNLP style)
  times_inf,          ///< S + mask * (-inf): 0 * -inf = NaN on allowed keys
  ignored,            ///< the mask is not used
  inverted,           ///< true read as "may attend"
  transposed,         ///< mask^T applied (refused when T_q != T_v)
  on_values,          ///< softmax unmasked; forbidden V rows dropped per query in O
  ignored_in_output,  ///< A masked, O from the unmasked softmax
  causal_assumed,     ///< any mask replaced by the top-left causal one
};
enum class Shift { row_max, none, global_max, max_all_logits, floor, column_max };
enum class Norm { row, column, global, abs_values };
enum class FullRow { refuse, either, natural, nan, zeros, uniform };
enum class Tiled {
  naive,
  no_rescale,
  forbidden_tile_nan,          ///< Algorithm 1's tile maximum: any wholly forbidden tile gives NaN
  forbidden_tile_nan_running,  ///< running maximum: NaN while no allowed key has been seen
  last_tile_dropped
};
enum class Heads { ordered, reversed, one_wo };
enum class Output { plain, A_transposed, swapped };
/// Under truncate_dk, the width whose square root scales the logits: the
/// common width the product used, Q's own (`d_k = Q.shape[-1]`) or K's.
enum class DkScaleWidth { truncated, q_width, k_width };

/// Every knob belongs to one step of the pipeline (an aspect: the scale, the
/// mask, the shift, ...); compose() in pipeline.cpp lists them all by
/// aspect, so a knob added here is added there too.
struct Knobs {
  Scale scale = Scale::sqrt_dk;
  double scale_width = 0;  ///< Scale::fixed_width: the width whose square root divides the logits
  MaskUse mask = MaskUse::neg_inf;
  double fill = 0;
  double mult_eps = 0;  ///< multiplicative and post_renorm: epsilon in the renormalising sum
  Shift shift = Shift::row_max;
  double floor = 0;
  Norm norm = Norm::row;
  double eps = 0;
  /// The softmax's denominator has an extra exp(0 - m) (m the row's shift):
  /// softmax1, the "quiet softmax", an implicit extra logit 0; rows sum to
  /// Z / (Z + exp(-m)) < 1.
  bool extra_zero_logit = false;
  /// A row whose normaliser underflowed to 0 (every exponential 0, the row
  /// not wholly forbidden) gets weights 0 instead of 0/0 = NaN: the guard
  /// `inv = sum == 0 ? 0 : 1 / sum` of C code (llm.c's softmax_forward).
  bool zero_sum_guard = false;
  /// exp(x) below this stand-in value is replaced by it (0: none): a
  /// vectorised exp that clamps its argument (exp(-inf) = 5.56e-309 in double).
  double exp_stand_in = 0;
  /// Computation arithmetic; nullopt-like float64 with `narrow` false means "declared".
  bool narrow = false;
  NumberFormat arith = NumberFormat::float64;
  FullRow full_row = FullRow::either;
  bool truncate_dk = false;      ///< Q, K of different widths cut to the smaller
  DkScaleWidth dk_scale_width = DkScaleWidth::truncated;  ///< (with truncate_dk)
  bool refuse_dk_mismatch = false;  ///< value models: no claim on a d_k mismatch unless set
  bool refuse_non_finite = false;   ///< value models: no claim on NaN/Inf input unless set
  bool swallow_non_finite = false;  ///< answers a non-finite input with finite values
  Output output = Output::plain;
  Tiled tiled = Tiled::naive;
  Heads heads = Heads::ordered;
  bool forward_mask = true;  ///< multi-head: the mask reaches the heads
};

/// The prediction of the knobs' computation on c, in the knobs' arithmetic
/// (the declared one unless `narrow`). Applies to every operation but the
/// mask builders. Throws std::invalid_argument for causal_mask/padding_mask.
Prediction predict(const Case& c, const Knobs& k, const Precision& declared);

/// A model from knobs.
Model knob_model(std::string key, std::vector<Param> params, Knobs k);

/// The computation with both a's and b's mistakes: each knob at the value
/// the one that changes it (from the default Knobs{}) gives. nullopt when
/// both change a knob of the same aspect (two mistakes in one step do not
/// compose: which would win is not known), or when either changes nothing.
std::optional<Knobs> compose(const Knobs& a, const Knobs& b);

/// "%g"-like short text of a number ("-1e+09" -> "-1e9").
std::string num_text(double x);

}  // namespace attn::mis::detail

#pragma once
// Models of the backward pass's mistakes (private; README.md, "The backward
// pass"). Each computes dQ, dK, dV of L = sum_il dO_il O_il in double from
// the definition (O = softmax(c Q K^T, masked) V, c = 1/sqrt(d_k); dV =
// P^T dO, dP = dO V^T, D_i = rowsum(dO o O)_i, dS = P o (dP - D 1^T), dQ =
// c dS K, dK = c dS^T Q: Dao et al. 2022, Appendix B.2; FlashAttention-2
// (Dao 2023), Algorithm 2) with one knob turned: the mistake.

#include <string>
#include <vector>

#include "attn/mis/model.hpp"

namespace attn::mis::detail {

/// The knobs of the backward computation; the default is the definition.
struct BackwardKnobs {
  /// What a forbidden logit becomes: -inf (the definition), a finite fill,
  /// or 0 (the logits multiplied by the keep indicator).
  enum class Fill { neg_inf, finite, times_keep } fill = Fill::neg_inf;
  double fill_value = 0;
  /// The weights: a stable softmax (the definition) or exp(S) / rowsum(exp(S)).
  bool no_max_shift = false;
  /// How the backward's recomputed P = exp(S - L) departs from the
  /// forward's weights (O and D keep the forward's): not at all, the mask
  /// left out, the scale left out of S, L of the unscaled logits, L =
  /// log rowsum(exp(S)) without the maximum taken out.
  enum class Recompute { same, mask_ignored, logits_unscaled, lse_unscaled, lse_no_max } recompute =
      Recompute::same;
  /// D_i: rowsum(dO o O) (the definition), 0, rowsum(P) (= 1), rowsum(dP)
  /// over every key, rowsum(dO), per key column (sum over the queries of
  /// P o dP), or over each key tile of `tile` keys only.
  enum class D { definition, zero, rowsum_p, rowsum_dp, rowsum_do, per_column, per_tile } d =
      D::definition;
  /// dS_ij = P_ij (1 - P_ij) dP_ij (the diagonal of the softmax's Jacobian).
  bool jacobian_diagonal = false;
  /// dV from the unnormalised exponentials E = exp(S - m) instead of P.
  bool dv_unnormalised = false;
  /// dV = P dO and dK = c dS Q: products whose shapes fit only when T_q = T_v
  /// (otherwise the model says a refusal or a crash).
  bool dv_untransposed = false, dk_untransposed = false;
  /// Powers of c in dQ and dK (1: the definition).
  int dq_scale_power = 1, dk_scale_power = 1;
  /// dO's row-major buffer read column-major.
  bool do_transposed = false;
  /// Key tile width: with D::per_tile the tile of D's sum; with skip_tile_end
  /// the last key of each key tile (and the last key) is skipped.
  Index tile = 0;
  bool skip_tile_end = false;
  /// dV accumulated over the query rows in a narrower format (float16...).
  bool dv_narrow = false;
  NumberFormat dv_format = NumberFormat::float64;
};

/// A backward model: key, parameters, knobs. Its Prediction holds the
/// gradients (answer.dQ, dK, dV) and per-entry tolerances (tol_dQ, tol_dK,
/// tol_dV): the declared precision's a-priori bound of the definition
/// (attention_backward_error_bound), scaled by how much larger the model's
/// gradient is, plus 4 n u (1 + W) of its largest entry (n = T_q + T_v +
/// d_k + d_v, W the largest |logit|: an exponential's argument error),
/// plus 4 n u of the same steps on absolute values (the sums' rounding,
/// larger than the gradient when dS = P o (dP - D) cancels under weights
/// far above 1); a non-finite value asks for a non-finite answer there. A case with a
/// fully forbidden row is no claim; a product whose shapes do not fit is
/// `may_refuse` (a refusal or a crash agrees).
Model backward_model(const std::string& key, std::vector<Param> params, BackwardKnobs k);

/// The definition's backward model (key "correct"): tolerance the bound alone.
Model backward_correct_model();

/// The backward families (registered in the catalogue).
void add_backward_families(std::vector<Family>& out);

/// Whether backward_low_precision_accumulation fits dV accumulated in
/// format `f`: the number-format table's formats narrower than float32
/// (larger unit roundoff; float32 accumulation is what kernels do).
bool narrow_accumulator(const ref::FormatInfo& f);

/// The candidate cases of the backward battery for a declared precision
/// (inputs exact in its storage type; none with a fully forbidden row).
std::vector<Case> backward_candidate_cases(const Precision& declared);

}  // namespace attn::mis::detail

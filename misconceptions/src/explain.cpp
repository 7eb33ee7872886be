// Explanation texts (explain.hpp): one piece of advice per key and language.
#include "explain.hpp"

#include <map>
#include <string>
#include <utility>

#include "attn/mis/catalogue.hpp"
#include "attn/ref/number_format.hpp"
#include "backward_models.hpp"

namespace attn::mis::detail {
namespace {

using Advice = std::pair<const char*, const char*>;  // NumPy, C++/Eigen

/// Advice for the keys of how a mask is applied (families_masking.cpp).
std::map<std::string, Advice> masking_advice() {
  return {
      {"post_softmax_mask",
       {"Set forbidden logits to -inf before the softmax: S = np.where(mask, -np.inf, S).",
        "Set forbidden logits to -infinity before the softmax (S(i,j) = "
        "-std::numeric_limits<double>::infinity() where mask(i,j))."}},
      {"post_softmax_renormalised",
       {"Mask before the softmax with -np.inf and take the row maximum over the allowed keys only; "
        "raise for a row with no allowed key.",
        "Mask before the softmax with -infinity, take the row maximum over allowed keys, and throw "
        "for a row with no allowed key."}},
      {"finite_fill",
       {"Use -np.inf, not a large finite number, filled or added (np.where(mask, -np.inf, S), not "
        "S + mask * -1e4): exp(-inf) is exactly 0.",
        "Use -std::numeric_limits<T>::infinity(), not a large finite number, filled or added "
        "(mask.select(-inf, S), not S + mask * -1e4)."}},
      {"fill_then_zeroed",
       {"Fill forbidden logits with -np.inf, not a finite number, and do not multiply the weights "
        "by the mask afterwards: np.where(mask, -np.inf, S); raise for a row with no allowed key.",
        "Set forbidden logits to -infinity, not a finite number, and do not zero the weights "
        "afterwards; throw for a row with no allowed key."}},
      {"multiplicative_mask",
       {"Do not multiply by the mask: put -np.inf at forbidden logits before the softmax.",
        "Do not multiply by the mask: put -infinity at forbidden logits before the softmax."}},
      {"mask_times_inf",
       {"mask * -np.inf is NaN where mask is 0; use np.where(mask, -np.inf, S).",
        "mask.cast<T>() * -inf is NaN where the mask is 0; use mask.select(-inf, S)."}},
      {"mask_ignored", {"Apply the mask argument.", "Apply the mask argument."}},
      {"inverted_mask",
       {"In this text mask True means forbidden, as in torch.nn.MultiheadAttention's boolean "
        "attn_mask; torch.nn.functional.scaled_dot_product_attention's boolean mask is the "
        "opposite (True = may attend), so forwarding to it needs ~mask.",
        "In this text mask true means forbidden, as in torch.nn.MultiheadAttention's boolean "
        "attn_mask; torch.nn.functional.scaled_dot_product_attention's boolean mask is the "
        "opposite (true = may attend)."}},
      {"mask_transposed",
       {"Index the mask [query, key]: row i is query i; do not use mask.T.",
        "Index the mask (query, key): row i is query i; do not use mask.transpose()."}},
      {"mask_on_values",
       {"Mask the logits, not the values: forbidden keys must get weight 0 in A.",
        "Mask the logits, not the values: forbidden keys must get weight 0 in A."}},
      {"mask_ignored_in_output",
       {"Compute O from the same masked A you return.", "Compute O from the same masked A you return."}},
      {"causal_assumed",
       {"Use the mask you are given; it need not be causal.",
        "Use the mask you are given; it need not be causal."}},
  };
}

/// Advice for the keys of the scale, the softmax, the outputs and the precision.
std::map<std::string, Advice> computation_advice() {
  return {
      {"wrong_scale",
       {"Divide Q @ K.T once by np.sqrt(d_k), with d_k = Q.shape[1].",
        "Divide Q * K.transpose() once by std::sqrt(d_k), with d_k = Q.cols()."}},
      {"mh_scale_by_d_model",
       {"Each head divides by sqrt(d_k) of that head (W_Q.shape[1]), not sqrt(d_model).",
        "Each head divides by sqrt(d_k) of that head (W_Q.cols()), not sqrt(d_model)."}},
      {"no_max_shift",
       {"Subtract each row's maximum first: E = np.exp(S - S.max(axis=1, keepdims=True)).",
        "Subtract each row's maximum first: (S.colwise() - S.rowwise().maxCoeff()).array().exp()."}},
      {"global_max",
       {"Subtract each row's own maximum (axis=1, keepdims=True), not S.max().",
        "Subtract each row's own maximum (S.rowwise().maxCoeff()), not S.maxCoeff()."}},
      {"global_normaliser",
       {"Divide by each row's sum: E / E.sum(axis=1, keepdims=True).",
        "Divide each row by its own sum (E.rowwise().sum())."}},
      {"max_over_forbidden",
       {"Take the row maximum after setting forbidden logits to -np.inf.",
        "Take the row maximum after setting forbidden logits to -infinity."}},
      {"max_floor",
       {"Start the running maximum at -np.inf, not at a finite floor.",
        "Start the running maximum at -std::numeric_limits<T>::infinity(), not at -10000.0f or "
        "another finite floor."}},
      {"wrong_axis",
       {"Normalise over the keys, the last axis: axis=1 (or -1), not axis=0.",
        "Normalise each row: rowwise(), not colwise()."}},
      {"abs_weights", {"The weights are exp(s - max), not |s|.", "The weights are exp(s - max), not |s|."}},
      {"epsilon_denominator",
       {"Remove the epsilon from the denominator: with the max shift the sum is at least 1.",
        "Remove the epsilon from the denominator: with the max shift the sum is at least 1."}},
      {"quiet_softmax",
       {"Divide by the row's own sum only: E / E.sum(axis=1, keepdims=True), with no extra "
        "np.exp(-m) term (softmax1 is not the softmax of the text: its rows do not sum to 1).",
        "Divide by the row's own sum only (E.rowwise().sum()), with no extra std::exp(-m) term "
        "(softmax1 is not the softmax of the text)."}},
      {"transposed_output",
       {"Return A as T_q x T_v (queries in rows), not A.T.",
        "Return A as T_q x T_v (queries in rows), not A.transpose()."}},
      {"outputs_swapped", {"Return (O, A) in that order.", "Return {O, A} in that order."}},
      {"low_precision",
       {"Keep float64 throughout (no astype(np.float32) / float16 inside).",
        "Compute in the declared scalar type throughout (no float/half temporaries)."}},
      {"tiny_positive_exp",
       {"Forbidden weights must be exactly 0: set them to 0 or use np.exp on -inf.",
        "Eigen's vectorised exp clamps its argument: exp(-inf) is a tiny positive number. Set "
        "forbidden weights to exactly 0 (mask.select(0, E))."}},
      {"fully_forbidden_answered",
       {"Raise an exception for a row whose every key is forbidden.",
        "Throw (std::domain_error, naming the row) for a row whose every key is forbidden."}},
      {"dk_mismatch_accepted",
       {"Raise when Q.shape[1] != K.shape[1]; do not cut to the smaller width.",
        "Throw when Q.cols() != K.cols(); do not cut to the smaller width."}},
      {"non_finite_swallowed",
       {"Raise for a NaN or Inf input (np.isfinite(...).all()).",
        "Throw for a NaN or Inf input (allFinite())."}},
  };
}

/// Advice for the keys of the tiled kernel, multi-head attention and the mask builders.
std::map<std::string, Advice> tiled_heads_and_masks_advice() {
  return {
      {"tiled_no_rescale",
       {"When the running maximum rises, multiply the running sum and accumulator by "
        "np.exp(m_old - m_new).",
        "When the running maximum rises, multiply the running sum and accumulator by "
        "std::exp(m_old - m_new)."}},
      {"tiled_forbidden_tile_nan",
       {"Skip (or guard) a key tile with no allowed key: exp(-inf - (-inf)) is NaN.",
        "Skip (or guard) a key tile with no allowed key: exp(-inf - (-inf)) is NaN."}},
      {"tiled_last_tile_dropped",
       {"Loop over ceil(T_v / tile_k) tiles; the last one may be shorter.",
        "Loop over (T_v + tile_k - 1) / tile_k tiles; the last one may be shorter."}},
      {"mh_heads_reversed",
       {"Concatenate the heads in order: np.concatenate(heads, axis=1) with head 0 first.",
        "Write head i into columns [i d_v, (i+1) d_v) of the concatenation."}},
      {"mh_one_wo_per_head",
       {"Multiply the concatenation of all heads by the whole W_O.",
        "Multiply the concatenation of all heads by the whole W_O."}},
      {"mh_mask_not_forwarded",
       {"Pass the mask to every head.", "Pass the mask to every head."}},
      {"causal_alignment",
       {"Bottom-right alignment forbids j > i + (T_v - T_q); top-left forbids j > i.",
        "Bottom-right alignment forbids j > i + (T_v - T_q); top-left forbids j > i."}},
      {"diagonal_forbidden",
       {"A query sees its own key: np.triu(ones, k=1) forbids j > i only.",
        "A query sees its own key: forbid j > i, not j >= i."}},
      {"triangle_reversed",
       {"The causal mask forbids the future (j > i), not the past.",
        "The causal mask forbids the future (j > i), not the past."}},
      {"padding_off_by_one",
       {"Keys j >= key_length are padding: np.arange(T_v) >= key_length.",
        "Keys j >= key_length are padding."}},
      {"padding_on_queries",
       {"Padding forbids key columns j >= key_length, in every query row.",
        "Padding forbids key columns j >= key_length, in every query row."}},
  };
}

/// backward_low_precision_accumulation's C++ advice, naming the formats
/// narrower than float32 that its models fit (the number-format table's).
const char* narrow_accumulator_advice() {
  static const std::string text = "Accumulate dV (and every gradient) in the declared type: no " +
                                  attn::ref::format_names("", " or ", narrow_accumulator) + " accumulator.";
  return text.c_str();
}

/// Advice for the keys of the backward pass (backward_models.cpp), citing
/// FlashAttention-2 (Dao 2023), section 2.2 and Algorithm 2, or the definition.
std::map<std::string, Advice> backward_advice() {
  const char* d_np =
      "D is one number per query row: D = (dO * O).sum(axis=1, keepdims=True) (equal to "
      "(P * dP).sum(axis=1)), then dS = P * (dP - D) (FlashAttention-2 (Dao 2023), Algorithm 2).";
  const char* d_cpp =
      "D is one number per query row: D = (dO.array() * O.array()).rowwise().sum() (equal to "
      "rowsum(P o dP)), then dS_ij = P_ij (dP_ij - D_i) (FlashAttention-2 (Dao 2023), Algorithm 2).";
  return {
      {"backward_d_term_dropped", {d_np, d_cpp}},
      {"backward_d_from_p", {d_np, d_cpp}},
      {"backward_d_unweighted", {d_np, d_cpp}},
      {"backward_d_without_o", {d_np, d_cpp}},
      {"backward_d_wrong_axis", {d_np, d_cpp}},
      {"backward_d_per_tile",
       {"Compute D = rowsum(dO * O) once, before the tile loops, over every key of the row "
        "(FlashAttention-2 (Dao 2023), Algorithm 2, line 4).",
        "Compute D = rowsum(dO o O) once, before the tile loops, over every key of the row "
        "(FlashAttention-2 (Dao 2023), Algorithm 2, line 4)."}},
      {"backward_jacobian_diagonal",
       {"The softmax's Jacobian is diag(p) - p p^T: dS = P * (dP - (P * dP).sum(axis=1, "
        "keepdims=True)), not P * (1 - P) * dP.",
        "The softmax's Jacobian is diag(p) - p p^T: dS_ij = P_ij (dP_ij - D_i) with D_i = "
        "sum_j P_ij dP_ij, not P_ij (1 - P_ij) dP_ij."}},
      {"backward_scale_missing",
       {"S = c Q K^T with c = 1/sqrt(d_k), so dQ = c * (dS @ K) and dK = c * (dS.T @ Q) "
        "(FlashAttention-2 (Dao 2023), Algorithm 2).",
        "S = c Q K^T with c = 1/sqrt(d_k), so dQ = c dS K and dK = c dS^T Q "
        "(FlashAttention-2 (Dao 2023), Algorithm 2)."}},
      {"backward_scale_twice",
       {"Apply c = 1/sqrt(d_k) once: dS is the gradient of the scaled logits, then dQ = c * "
        "(dS @ K), dK = c * (dS.T @ Q).",
        "Apply c = 1/sqrt(d_k) once: dS is the gradient of the scaled logits, then dQ = c dS K, "
        "dK = c dS^T Q."}},
      {"backward_dv_unnormalised",
       {"dV = P.T @ dO with the normalised weights P = E / E.sum(axis=1, keepdims=True), or "
        "P = exp(S - L) with the saved logsumexp L.",
        "dV = P^T dO with the normalised weights P_ij = exp(S_ij - L_i) (L the saved "
        "logsumexp), not the bare exponentials."}},
      {"backward_dv_untransposed",
       {"dV = P.T @ dO: dV is T_v x d_v, summed over the queries.",
        "dV = P^T dO (P.transpose() * dO): dV is T_v x d_v, summed over the queries; test "
        "with T_q != T_v."}},
      {"backward_dk_untransposed",
       {"dK = c * (dS.T @ Q): dK is T_v x d_k, summed over the queries.",
        "dK = c dS^T Q (dS.transpose() * Q): dK is T_v x d_k, summed over the queries; test "
        "with T_q != T_v."}},
      {"backward_do_transposed",
       {"Use dO as given, row i for query i (check its shape and memory order).",
        "Map dO's buffer as a row-major T_q x d_v matrix (Eigen::Map<const Matrix> with the "
        "header's row-major Matrix type, not Eigen::MatrixXd, which is column-major)."}},
      {"backward_low_precision_accumulation",
       {"Accumulate dV (and every gradient) in the declared type: no float16 buffer for the "
        "running sum.",
        narrow_accumulator_advice()}},
      {"backward_finite_mask_value",
       {"Recompute P with -inf at forbidden keys (np.where(mask, -np.inf, S)) so their weight is "
        "exactly 0 (Lemma 2).",
        "Recompute P with -infinity at forbidden keys (or P = 0 there) so their weight is "
        "exactly 0 (Lemma 2)."}},
      {"backward_mask_by_multiplication",
       {"Mask with -inf before the softmax (np.where(mask, -np.inf, S)), not S * ~mask.",
        "Mask with -infinity before the softmax (or P = 0 at forbidden keys), not by "
        "multiplying the logits by the keep indicator."}},
      {"backward_mask_not_in_recompute",
       {"Apply the mask again when recomputing P = exp(S - L): P = 0 at forbidden keys "
        "(FlashAttention-2 (Dao 2023), Algorithm 2; Lemma 2).",
        "Apply the mask again when recomputing P = exp(S - L): P = 0 at forbidden keys "
        "(FlashAttention-2 (Dao 2023), Algorithm 2; Lemma 2)."}},
      {"backward_no_max_shift",
       {"Take the row maximum out: E = np.exp(S - S.max(axis=1, keepdims=True)); a saved "
        "logsumexp is m + log(sum(exp(S - m))).",
        "Take the row maximum out: exp(S_ij - m_i); a saved logsumexp is m_i + log(sum_j "
        "exp(S_ij - m_i))."}},
      {"backward_lse_unscaled",
       {"Save the logsumexp of the scaled logits c Q K^T, the ones the weights are the softmax "
        "of (FlashAttention-2 (Dao 2023), Algorithm 2).",
        "Save the logsumexp of the scaled logits c Q K^T, the ones the weights are the softmax "
        "of (FlashAttention-2 (Dao 2023), Algorithm 2)."}},
      {"backward_recompute_unscaled",
       {"Recompute P = np.exp(c * (Q @ K.T) - L) with the scale c = 1/sqrt(d_k), as in the "
        "forward.",
        "Recompute P_ij = exp(c Q_i . K_j - L_i) with the scale c = 1/sqrt(d_k), as in the "
        "forward."}},
      {"backward_tile_boundary",
       {"A tile's end is exclusive: range(k0, min(k0 + B, T_v)) covers every key once.",
        "A tile's end is exclusive: for (j = k0; j < std::min(k0 + B, T_v); ++j) covers every "
        "key once."}},
  };
}

/// Advice per key: (NumPy, C++/Eigen).
const std::map<std::string, Advice>& advice() {
  static const std::map<std::string, Advice> a = [] {
    std::map<std::string, Advice> all = masking_advice();
    all.merge(computation_advice());
    all.merge(tiled_heads_and_masks_advice());
    all.merge(backward_advice());
    return all;
  }();
  return a;
}

/// Advice for a key whose fix differs when the code builds the mask (C1)
/// rather than applies it.
const std::map<std::string, Advice>& builder_advice() {
  static const std::map<std::string, Advice> a = {
      {"inverted_mask",
       {"A built mask marks the forbidden keys with True: the causal mask is np.triu(ones, "
        "k=1) top-left, k = 1 + T_v - T_q bottom-right (np.tril marks the allowed keys, the "
        "convention of torch's scaled_dot_product_attention), the padding mask "
        "np.arange(T_v) >= key_length.",
        "A built mask marks the forbidden keys with true: the causal mask is true where "
        "j > i (+ T_v - T_q bottom-right), not where j <= i; the padding mask is true where "
        "j >= key_length."}},
  };
  return a;
}

/// low_precision's advice for a subject that declares a storage type other
/// than float64: what its declaration promises (reference/TOLERANCE.md,
/// "Storage and accumulation types").
std::string narrow_kernel_advice(const attn::prop::Precision& declared, Language lang) {
  const std::string acc = attn::ref::format_name(declared.accumulate);
  const std::string st = attn::ref::format_name(declared.storage);
  if (declared.accumulate == declared.storage)
    return lang == Language::numpy
               ? "Keep every intermediate in " + st + " or wider (no cast to a narrower type inside)."
               : "Keep every intermediate in " + st + " or wider (no narrower temporaries).";
  return "The declaration is " + st + " storage accumulating in " + acc +
         ": keep the logits Q K^T, the row maximum and the row sums in " + acc +
         (lang == Language::numpy ? " (e.g. S = q.float() @ k.float().T in PyTorch)" : "") +
         " and round only the inputs, the weights before P V and O to " + st +
         "; a kernel that rounds them to " + st + " is right only if it declares --accumulate " +
         st + ".";
}

}  // namespace

std::string params_text(const Fit& f) {
  std::string s;
  for (const Param& p : f.params) s += (s.empty() ? "" : ", ") + p.said();
  if (!f.also_fits.empty()) {
    s += (s.empty() ? "" : "; ") + std::string("also consistent with ");
    for (std::size_t i = 0; i < f.also_fits.size(); ++i) s += (i ? ", " : "") + f.also_fits[i];
  }
  return s.empty() ? s : " (" + s + ")";
}

std::string explanation(const Diagnosis& d, Language lang, const attn::prop::Precision& declared) {
  const std::string n = std::to_string(d.cases_sent);
  switch (d.verdict) {
    case Diagnosis::Verdict::fault:
      return "The submission did not answer (" +
             (d.error_type.empty() ? d.message : d.error_type + ": " + d.message) +
             "): this is a fault of the code (crash, timeout, malformed reply or a programming "
             "error), not a misconception about attention. Fix it first.";
    case Diagnosis::Verdict::raises_on_every_call:
      // Only the battery's cases are known here: other properties' cases
      // may have been answered, so this claims nothing about "every call".
      return "Every one of the " + n + " cases sent for the diagnosis raised " + d.error_type +
             (d.message.empty() ? "" : " (" + d.message + ")") +
             ", valid inputs included, so no misconception can be read from these answers. "
             "Run the code on the counterexample above first.";
    case Diagnosis::Verdict::consistent:
      return "On " + n + " extra cases chosen to tell the known mistakes apart" +
             (d.fully_forbidden_rows_left_out.empty()
                  ? std::string()
                  : " (sent without their query rows whose every key is forbidden: there the "
                    "declared answer, " + d.fully_forbidden_rows_left_out + ", is checked by the "
                    "property fully_forbidden_" + d.fully_forbidden_rows_left_out + " alone)") +
             ", the answers agree with the definition within the error bound; the failure of " +
             d.failed_property + " is not explained by a known mistake. Look at the counterexample itself.";
    case Diagnosis::Verdict::no_known_mistake:
      // The report's summary has already said "no known mistake reproduces
      // these answers": this says what was tried, not the same words again.
      return "None of the known mistakes' models gives the answers to all " + n +
             " extra cases sent; the counterexample of " + d.failed_property +
             " is kept as the evidence.";
    default: break;
  }
  std::string s;
  const bool combined = d.verdict == Diagnosis::Verdict::combined;
  if (d.verdict == Diagnosis::Verdict::several)
    s = "Several known mistakes reproduce all " + n + " answers; they cannot be told apart here: ";
  const bool three = combined && d.fits.size() == 3;
  if (three)
    s = "No one known mistake, and no two, reproduce the " + n + " answers, but these three together "
        "do, each in its own step of the computation: ";
  else if (combined && d.alone_fits.empty())
    s = "No one known mistake reproduces the " + n + " answers, but these two together do, each in "
        "its own step of the computation: ";
  else if (combined)
    s = "These two mistakes together reproduce the " + n + " answers, each in its own step of the "
        "computation: ";
  for (std::size_t i = 0; i < d.fits.size(); ++i) {
    const Fit& f = d.fits[i];
    const Family* fam = find_family(f.key);
    s += (i ? (combined ? " And: " : " Or: ") : "") + std::string("[") + f.key + "] " +
         (fam ? fam->misconception : std::string()) + params_text(f);
    auto it = advice().find(f.key);
    const auto built = builder_advice().find(f.key);
    if (built != builder_advice().end() && attn::prop::builds_mask(d.counterexample.op) &&
        lang != Language::neutral)
      s += std::string(" ") + (lang == Language::numpy ? built->second.first : built->second.second);
    else if (f.key == "low_precision" && declared.storage != attn::prop::NumberFormat::float64 &&
        lang != Language::neutral)
      s += " " + narrow_kernel_advice(declared, lang);
    else if (it != advice().end() && lang != Language::neutral)
      s += std::string(" ") + (lang == Language::numpy ? it->second.first : it->second.second);
    else if (fam && lang == Language::neutral)
      s += " (" + fam->source + ".)";
  }
  if (d.verdict == Diagnosis::Verdict::misconception)
    s += " (Reproduced on all " + n + " cases of the diagnosis battery.)";
  else if (three)
    s += " (Reproduced together on all " + n + " cases of the diagnosis battery; no one or two of them do.)";
  else if (combined && d.alone_fits.empty())
    s += " (Reproduced together on all " + n + " cases of the diagnosis battery; neither alone does.)";
  else if (combined) {
    s += " (Reproduced together on all " + n + " cases of the diagnosis battery.";
    for (const Diagnosis::AloneFit& a : d.alone_fits)
      s += " [" + a.key + "] alone " +
           (a.wider ? "fits them too, but as a wider claim: its tolerance admits these answers and "
                      "others, and may hide the second mistake."
                    : "leaves the fully forbidden rows unexplained: it may refuse them or answer "
                      "them, and their answer here is the empty-row convention's.");
    s += ")";
  }
  else
    s += " What would tell them apart: " + d.tell_apart;
  return s;
}

void set_verdict_from_fits(Diagnosis& d) {
  if (d.fits.empty()) {
    d.verdict = Diagnosis::Verdict::no_known_mistake;
  } else if (d.fits.size() == 1) {
    d.verdict = Diagnosis::Verdict::misconception;
  } else {
    d.verdict = Diagnosis::Verdict::several;
    for (const Fit& f : d.fits)
      if (const Family* fam = find_family(f.key))
        d.tell_apart += (d.tell_apart.empty() ? "" : "; ") + f.key + ": " + fam->told_apart_by;
  }
}

}  // namespace attn::mis::detail

namespace attn::mis {

bool has_advice(const std::string& key) {
  return detail::advice().count(key) > 0 || detail::builder_advice().count(key) > 0;
}

}  // namespace attn::mis

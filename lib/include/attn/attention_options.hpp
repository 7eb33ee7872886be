#pragma once
#include <optional>

#include "attn/masks.hpp"
#include "attn/matrix.hpp"

namespace attn {

/// The logits' scale and the causal mask of attention_tiled's second form
/// and of the backward passes (attention_backward.hpp).
///
/// scale: the factor c of the logits S = c Q K^T; std::nullopt means
/// 1/sqrt(d_k) (Lemma 1, section 32.2.3), computed exactly as the forms
/// without options compute it; a value given is rounded to the scalar type
/// (float or double). Any finite value is accepted (PyTorch's
/// scaled_dot_product_attention takes the same `scale`); NaN or Inf is a
/// NonFiniteInputError on "scale".
///
/// causal: the causal mask causal_mask(T_q, T_v, alignment) (masks.hpp:
/// top-left, the text's rule of section 32.2.4, or bottom-right) is
/// combined with the mask given, if any (combine_masks: a key forbidden by
/// either is forbidden). A row left with no key is a FullyMaskedRowError,
/// as for any mask. The combined mask is built (T_q T_v bytes).
struct AttentionOptions {
  std::optional<double> scale;
  bool causal = false;
  CausalAlignment alignment = CausalAlignment::top_left;
};

}  // namespace attn

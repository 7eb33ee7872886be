#pragma once
#include "attn/matrix.hpp"

namespace attn {

/// Where the causal diagonal sits when T_q != T_v.
enum class CausalAlignment {
  /// Query i may attend keys j <= i (the text's rule, section 32.2.4).
  /// With T_q > T_v the last rows see every key; with T_q < T_v the last
  /// keys are never seen.
  top_left,
  /// Query i may attend keys j <= i + (T_v - T_q): the last query sees every
  /// key (decoding with a cache of T_v - T_q earlier keys). With T_q > T_v
  /// the first T_q - T_v rows are fully forbidden and attention refuses them.
  bottom_right,
};

// The three functions below are inline (the caller's Eigen allocates the
// mask) and computed by libattn through attn::raw (abi.hpp).

/// Causal mask of shape T_q x T_v (true = forbidden).
/// Throws ShapeError if T_q or T_v is negative.
inline Mask causal_mask(Index T_q, Index T_v,
                        CausalAlignment alignment = CausalAlignment::top_left) {
  Mask M;
  raw::causal_mask(T_q, T_v, alignment, raw::out(M, T_q, T_v));
  return M;
}

/// Padding mask of shape T_q x T_v (true = forbidden): keys j >= key_length
/// are padding and forbidden for every query (section 32.2.4).
/// Throws ShapeError if key_length is outside [0, T_v] or a size is negative.
inline Mask padding_mask(Index T_q, Index T_v, Index key_length) {
  Mask M;
  raw::padding_mask(T_q, T_v, key_length, raw::out(M, T_q, T_v));
  return M;
}

/// Union of two masks of the same shape: an entry is forbidden if either
/// mask forbids it (e.g. padding and causal together, section 32.2.4).
/// Throws ShapeError if the shapes differ.
inline Mask combine_masks(const Mask& a, const Mask& b) {
  Mask M;
  raw::combine_masks(raw::in(a), raw::in(b), raw::out(M, a.rows(), a.cols()));
  return M;
}

}  // namespace attn

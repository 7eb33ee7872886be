#pragma once
#include "attn/matrix.hpp"

namespace attn {

/// Fixed sinusoidal positional encoding (section 32.2.5; Vaswani et al. 2017,
/// "Attention Is All You Need", section 3.5), added to the embeddings:
/// X~_t = X_t + p_t. For position t and column c = 2r or 2r + 1:
///   P(t, 2r)     = sin(t / 10000^(2r/d)),
///   P(t, 2r + 1) = cos(t / 10000^(2r/d)),
/// i.e. sine at even and cosine at odd columns, with wavelengths from 2*pi
/// up to 10000 * 2*pi. An odd d is allowed: its last column is a sine.
/// Positions start at t = 0 (row 0 is [0, 1, 0, 1, ...]).
///
/// The angle and its sine or cosine are computed in double for both scalar
/// types and then rounded to T, so a float result is within about half a
/// float ulp of the exact value. For large t the angle's
/// own rounding (a few double ulps of t / 10000^(2r/d)) dominates.
///
/// Returns T_len x d. Throws ShapeError if T_len or d is negative; a zero
/// size gives an empty matrix.
/// Inline: computed by libattn through attn::raw (abi.hpp).
template <class T>
Matrix<T> sinusoidal_positional_encoding(Index T_len, Index d) {
  Matrix<T> P;
  raw::sinusoidal_positional_encoding(T_len, d, raw::out(P, T_len, d));
  return P;
}

}  // namespace attn

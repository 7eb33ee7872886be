#pragma once
// The stable masked softmax and the scaled logits, with the name of the
// function the user called for messages (private to lib/): masked_softmax,
// softmax_rows, attention and multi_head_attention share them, so every
// error names what the user called, never an internal step.

#include "attn/matrix.hpp"
#include "logit_rule.hpp"

namespace attn::detail {

/// A = masked softmax of S row by row (Lemma 2), `mask` may be null. The
/// rule for logits (logit_rule.hpp) decides which entries take part.
template <class T>
Matrix<T> softmax_impl(const Matrix<T>& S, const Mask* mask, Logits kind, const char* where);

/// S = Q K^T / sqrt(d_k) after Lemma 1's checks on Q and K (ShapeError,
/// NonFiniteInputError naming `where`).
template <class T>
Matrix<T> scaled_logits(const Matrix<T>& Q, const Matrix<T>& K, const char* where);

/// attention(Q, K, V, mask) naming `where` in every error.
template <class T>
struct AttentionParts {
  Matrix<T> O;
  Matrix<T> A;
};
template <class T>
AttentionParts<T> attention_impl(const Matrix<T>& Q, const Matrix<T>& K, const Matrix<T>& V,
                                 const Mask* mask, const char* where);

}  // namespace attn::detail

# Origin: rasbt/LLMs-from-scratch, ch03/02_bonus_efficient-multihead-attention/ch03.py,
# MultiHeadAttention.forward (the chapter 3 code), commit
# 9a5d4d8ac9efe90d216fe7c816fc36b0f54bc53b.
# Licence: Apache-2.0 (file header: "under Apache License 2.0").
# Not copied: a NumPy port of the arithmetic.
# Arithmetic kept: attn_scores = queries @ keys^T; masked_fill_(mask_bool, -inf) with
# mask TRUE = masked (the triu buffer, as attnlab's) BEFORE the scaling; then
# softmax(attn_scores / keys.shape[-1]**0.5) (the division after the fill: -inf / 8
# stays -inf); context = attn_weights @ values; float32.
# Changed: the source's mask is the causal buffer; here attnlab's mask is used in its
# place (same fill per entry); projections, heads, dropout and out_proj left out;
# returns (O, A).
# Expected departures (before running): float32; a fully forbidden row is NaN. The
# order fill-then-scale changes nothing for -inf. Expected names: text: low_precision
# (float32) + fully_forbidden_answered (NaN); own [--precision float32
# --fully-forbidden nan]: pass.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    scores = q @ k.T
    if mask is not None:
        scores = np.where(np.asarray(mask, bool), np.float32(-np.inf), scores)
    scores = scores / np.float32(k.shape[-1] ** 0.5)
    with np.errstate(invalid="ignore"):
        ex = np.exp(scores - scores.max(axis=-1, keepdims=True))
        w = ex / ex.sum(axis=-1, keepdims=True)
    return w @ v, w

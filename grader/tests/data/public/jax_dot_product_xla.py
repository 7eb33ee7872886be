# Origin: jax-ml/jax, jax/_src/nn/functions.py, _dot_product_attention_xla /
# _apply_masks behind jax.nn.dot_product_attention (as read; no commit pinned).
# Licence: Apache-2.0 (Copyright The JAX Authors). Not copied: a NumPy reimplementation.
# Arithmetic kept: scale = 1/sqrt(head_dim); logits = q @ k^T * scale; mask (true =
# KEEP): padded = where(mask, logits, large_negative) with large_negative =
# -0.7 * finfo(dtype).max (value as read, unverified); softmax in float32; @ v.
# Changed: jax -> NumPy float32; keep mask = negation of the mask argument
# (true = forbidden); no bias, GQA, causal flag.
# Expected departures (before running): float32; finite fill: a fully forbidden
# row uniform, not refused. With --precision float32: fully_forbidden_refused fails.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    logits = q @ k.T * np.float32(1 / np.sqrt(q.shape[-1]))
    if mask is not None:
        logits = np.where(np.asarray(mask, bool), np.float32(-0.7) * np.finfo(np.float32).max, logits)
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    p = e / e.sum(axis=-1, keepdims=True)
    return p @ v, p

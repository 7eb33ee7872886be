# Origin: google/flax, flax/linen/attention.py, dot_product_attention_weights
# (as read; no commit pinned).
# Licence: Apache-2.0 (Copyright The Flax Authors). Not copied: a NumPy
# reimplementation of the arithmetic.
# Arithmetic kept: query = query / sqrt(depth) (depth = q's width); weights =
# einsum(q, k); mask (true = KEEP): big_neg = jnp.finfo(dtype).min;
# weights = where(mask, weights, big_neg); softmax; out = weights @ v; float32.
# Changed: jax -> NumPy float32; the keep mask is the negation of the mask
# argument (true = forbidden); no bias, dropout, heads.
# Expected departures (before running): float32; fill finfo.min: a fully forbidden
# row is uniform, not refused. With --precision float32: fully_forbidden_refused fails.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    q = q / np.float32(np.sqrt(q.shape[-1]))
    w = q @ k.T
    if mask is not None:
        w = np.where(np.asarray(mask, bool), np.finfo(np.float32).min, w)
    e = np.exp(w - w.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w

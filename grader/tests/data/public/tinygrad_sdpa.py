# Origin: tinygrad/tinygrad, tinygrad/tensor.py, Tensor.scaled_dot_product_attention
# (as read; no commit pinned).
# Licence: MIT (Copyright (c) 2024, the tiny corp). Not copied: a NumPy reimplementation.
# Arithmetic kept: a boolean attn_mask (true = KEEP) becomes an additive mask
# where(mask, 0, -inf); (q @ k^T / sqrt(q.shape[-1]) + mask).softmax(-1) @ v;
# float32 (tinygrad's default float).
# Changed: torch-like API -> NumPy float32; the keep mask is the negation of the
# mask argument (true = forbidden); returns (O, A).
# Expected departures (before running): float32; a fully forbidden row is NaN
# (all -inf), not refused. With --precision float32 --fully-forbidden nan: pass.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    s = q @ k.T / np.float32(np.sqrt(q.shape[-1]))
    if mask is not None:
        s = s + np.where(np.asarray(mask, bool), np.float32(-np.inf), np.float32(0))
    with np.errstate(invalid="ignore"):
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        a = e / e.sum(axis=-1, keepdims=True)
    return a @ v, a

# Origin: lucidrains/x-transformers, x_transformers/attend.py, Attend.forward
# (non-flash path, as read; no commit pinned).
# Licence: MIT (Copyright (c) 2020 Phil Wang). Not copied: a NumPy reimplementation.
# Arithmetic kept: scale = dim_head ** -0.5; sim = (q @ k^T) * scale;
# mask_value = -torch.finfo(sim.dtype).max; sim = sim.masked_fill(~mask, mask_value)
# (mask there: true = keep); softmax(dim=-1) in float32; out = attn @ v.
# Changed: torch -> NumPy float32; the keep mask is the negation of the mask
# argument (true = forbidden); one head; no talking heads, dropout or causal flag.
# Expected departures (before running): float32; fill -finfo.max (finite): a fully
# forbidden row gives uniform weights, not refused. With --precision float32:
# fully_forbidden_refused fails.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    sim = (q @ k.T) * np.float32(q.shape[-1] ** -0.5)
    if mask is not None:
        sim = np.where(np.asarray(mask, bool), -np.finfo(np.float32).max, sim)
    e = np.exp(sim - sim.max(axis=-1, keepdims=True))
    a = e / e.sum(axis=-1, keepdims=True)
    return a @ v, a

# Origin: OpenNMT/OpenNMT-py, onmt/modules/multi_headed_attn.py,
# MultiHeadedAttention.forward (as read; no commit pinned).
# Licence: MIT (Copyright (c) 2017-Present OpenNMT). Not copied: a NumPy reimplementation.
# Arithmetic kept: query = query / sqrt(dim_per_head); scores = q @ k^T in float32;
# scores = scores.masked_fill(mask, -1e18) (mask: true = forbidden); softmax(dim=-1);
# context = attn @ v.
# Changed: torch -> NumPy float32; one head, no projections/relative positions.
# Expected departures (before running): float32; finite fill -1e18: a fully
# forbidden row is uniform, not refused (forbidden weights are exactly 0 otherwise).
# With --precision float32: fully_forbidden_refused fails.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    q = q / np.float32(np.sqrt(q.shape[-1]))
    s = q @ k.T
    if mask is not None:
        s = np.where(np.asarray(mask, bool), np.float32(-1e18), s)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    a = e / e.sum(axis=-1, keepdims=True)
    return a @ v, a

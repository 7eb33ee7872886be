# Origin: Dao-AILab/flash-attention, tests/test_flash_attn.py, attention_ref
# (https://github.com/Dao-AILab/flash-attention, no commit pinned; as read).
# Licence: BSD-3-Clause (Copyright (c) 2022, Tri Dao). Not copied: a NumPy
# reimplementation of the arithmetic of its default path.
# Arithmetic kept: upcast=True: q, k, v to float32; scores = q @ k^T / sqrt(d)
# (d = q's width); masked_fill(forbidden, -inf); softmax(dim=-1); rows whose every
# key is forbidden are set to 0 afterwards (the reference avoids NaN);
# output = attention @ v.
# Changed: torch -> NumPy float32; key_padding/causal/window masks replaced by the
# mask argument (true = forbidden); no dropout, softcap, bias; one head.
# Expected departures (before running): float32; fully forbidden row answered with
# zeros, not refused. With --precision float32 --fully-forbidden zeros: expect pass.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    scores = (q @ k.T) / np.float32(np.sqrt(q.shape[-1]))
    m = np.zeros(scores.shape, bool) if mask is None else np.asarray(mask, bool)
    scores = np.where(m, np.float32(-np.inf), scores)
    with np.errstate(invalid="ignore"):
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        a = e / e.sum(axis=-1, keepdims=True)
    a = np.where(m.all(axis=-1, keepdims=True), np.float32(0), a)
    return a @ v, a

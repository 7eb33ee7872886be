# Origin: facebookresearch/fairseq, fairseq/modules/multihead_attention.py,
# MultiheadAttention.forward (as read; no commit pinned).
# Licence: MIT (Copyright (c) Facebook, Inc. and its affiliates). Not copied:
# a NumPy reimplementation of the arithmetic.
# Arithmetic kept: q = q * scaling (scaling = head_dim ** -0.5); w = q @ k^T;
# key_padding_mask: masked_fill(mask, float("-inf")); utils.softmax(w, dim=-1)
# computed in float32; attn = w @ v.
# Changed: torch -> NumPy float32; key_padding_mask generalised to the (T_q, T_k)
# mask argument (true = forbidden); no projections, one head; returns (O, A).
# Expected departures (before running): float32; a fully forbidden row is NaN,
# not refused. With --precision float32 --fully-forbidden nan: expect pass.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    q = q * np.float32(q.shape[-1] ** -0.5)
    w = q @ k.T
    if mask is not None:
        w = np.where(np.asarray(mask, bool), np.float32(-np.inf), w)
    with np.errstate(invalid="ignore"):
        e = np.exp(w - w.max(axis=-1, keepdims=True))
        w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w

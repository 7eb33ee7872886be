# Origin: pytorch/pytorch, the reference implementation printed in the docstring of
# torch.nn.functional.scaled_dot_product_attention (torch/nn/functional.py, 2.x
# releases as read; no commit pinned).
# Licence: BSD-3-Clause (Copyright (c) Facebook, Inc. and its affiliates; PyTorch
# contributors). Not copied: a NumPy reimplementation of the arithmetic.
# Arithmetic kept: scale_factor = 1 / sqrt(query.size(-1)); attn_bias zeros;
# boolean attn_mask (true = KEEP): attn_bias.masked_fill_(attn_mask.logical_not(),
# float("-inf")); attn_weight = q @ k^T * scale_factor + attn_bias; softmax(dim=-1);
# attn_weight @ v; float32.
# Changed: torch -> NumPy float32; the keep mask is the negation of the mask
# argument (true = forbidden); no dropout, no is_causal/GQA; returns (O, A).
# Expected departures (before running): float32; a fully forbidden row is NaN,
# not refused. With --precision float32 --fully-forbidden nan: expect pass.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    scale_factor = np.float32(1 / np.sqrt(q.shape[-1]))
    bias = np.zeros((q.shape[0], k.shape[0]), np.float32)
    if mask is not None:
        bias = np.where(np.asarray(mask, bool), np.float32(-np.inf), bias)
    w = q @ k.T * scale_factor + bias
    with np.errstate(invalid="ignore"):
        e = np.exp(w - w.max(axis=-1, keepdims=True))
        w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w

# Origin: karpathy/nanoGPT, model.py, CausalSelfAttention.forward, the "manual
# implementation of attention" branch (commit 04a1d697ddc57aadb2edbe95816bf86c6b8918b0,
# https://github.com/karpathy/nanoGPT/blob/04a1d697ddc57aadb2edbe95816bf86c6b8918b0/model.py).
# Licence: MIT. Not copied: this file reimplements the branch's arithmetic in NumPy.
# Arithmetic kept: att = (q @ k^T) * (1/sqrt(k.size(-1))); masked_fill(forbidden,
# -inf); softmax(dim=-1); y = att @ v; all in float32 (torch's default dtype).
# Changed: torch -> NumPy float32; the causal buffer `bias[:,:,:T,:T] == 0` is
# replaced by the mask argument (true = forbidden); one head, no batch; returns (O, A).
# Expected departures (written before running attnlab): float32 (fails the float64
# bound unless --precision float32); a fully forbidden row gives NaN (softmax of
# all -inf), not refused. With --precision float32 --fully-forbidden nan: expect pass.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    att = (q @ k.T) * np.float32(1.0 / np.sqrt(k.shape[-1]))
    if mask is not None:
        att = np.where(np.asarray(mask, bool), np.float32(-np.inf), att)
    with np.errstate(invalid="ignore"):
        e = np.exp(att - att.max(axis=-1, keepdims=True))
        att = e / e.sum(axis=-1, keepdims=True)
    return att @ v, att

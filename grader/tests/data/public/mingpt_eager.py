# Origin: karpathy/minGPT, mingpt/model.py, CausalSelfAttention.forward (commit
# bbbdac74fa9b2e55574d70056163ffbae42310c1,
# https://github.com/karpathy/minGPT/blob/bbbdac74fa9b2e55574d70056163ffbae42310c1/mingpt/model.py).
# Licence: MIT. Not copied: a NumPy reimplementation of the arithmetic.
# Arithmetic kept: att = (q @ k^T) * (1.0 / math.sqrt(k.size(-1))) (the scale
# computed in Python double, rounded once into float32); masked_fill(mask, -inf);
# F.softmax(dim=-1); y = att @ v; float32.
# Changed: torch -> NumPy float32; the causal buffer replaced by the mask argument
# (true = forbidden); one head; returns (O, A). The softmax is written out with the
# max shift (torch's softmax also subtracts the row max).
# Expected departures (before running): float32; fully forbidden row -> NaN, not
# refused. With --precision float32 --fully-forbidden nan: expect pass.
import math
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    att = (q @ k.T) * np.float32(1.0 / math.sqrt(k.shape[-1]))
    if mask is not None:
        att = np.where(np.asarray(mask, bool), np.float32(-np.inf), att)
    with np.errstate(invalid="ignore"):
        e = np.exp(att - att.max(axis=-1, keepdims=True))
        att = e / e.sum(axis=-1, keepdims=True)
    return att @ v, att

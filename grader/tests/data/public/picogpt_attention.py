# Origin: jaymody/picoGPT, gpt2.py, attention() and softmax(), with the causal mask
# built in mha(), commit dfb5df895a7a6b18705866a0bf7ec04947d8e05a (read in a snapshot
# of the repository at that commit).
# Licence: MIT (Copyright (c) 2023 Jay Mody).
# Not copied: a NumPy port written from the arithmetic, not the source text.
# Arithmetic kept: logits = q @ k.T / np.sqrt(q.shape[-1]) (a NumPy float64 scalar
# dividing a float32 array: float32 under the NumPy the repository pins,
# numpy==1.24.1, whose value-based casting keeps the array's type); the mask is
# ADDED: picoGPT's causal mask is (1 - np.tri(n, dtype=x.dtype)) * -1e10, float32,
# 1 - keep times -1e10 (-1e10 is exact in float32); softmax(x) = exp(x - max) /
# sum over the last axis; out = weights @ v; float32 throughout (the GPT-2
# checkpoint's weights are loaded as float32 arrays, so x and q, k, v are float32).
# Changed: the causal mask np.tri (1 = may attend) replaced by the mask argument
# (true = forbidden), turned into the same additive (1 - keep) * -1e10; one head,
# no projections or layer norm; the weights returned too: (O, A). Arithmetic
# unchanged.
# Expected departures (before running): an additive finite mask -1e10 instead of
# -inf: forbidden keys get weight where the allowed logits lie near or below -1e10
# (exact_zeros); in float32 S - 1e10 rounds to -1e10 for |S| < 512 (the spacing
# there is 1024), so a fully forbidden row comes out uniform (mean of V), not
# refused; float32. Expected names: text run: finite_fill (fill = -1e10) +
# low_precision (float32) (-1e10 is a candidate fill in place, not as an added
# one; in float32 the added fill absorbs the logits of the battery's ordinary
# rows, so the in-place member should reproduce them; unsure where a row has
# logits beyond 512 in size); own [--precision float32]: finite_fill (fill =
# -1e10) on exact_zeros and fully_forbidden_refused.
import numpy as np


def softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    logits = q @ k.T / np.float32(np.sqrt(q.shape[-1]))
    if mask is not None:
        keep = (~np.asarray(mask, bool)).astype(np.float32)
        logits = logits + (np.float32(1) - keep) * np.float32(-1e10)
    w = softmax(logits)
    return w @ v, w

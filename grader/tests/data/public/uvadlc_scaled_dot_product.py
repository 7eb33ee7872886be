# Origin: phlippe/uvadlc_notebooks,
# docs/tutorial_notebooks/tutorial6/Transformers_and_MHAttention.ipynb,
# scaled_dot_product(q, k, v, mask=None), commit
# 0da8037c7abc32f478ff6142acceb72dbcf088ee (read in a snapshot of the repository).
# Licence: MIT (LICENSE.md, Copyright (c) 2020 Phillip Lippe).
# Not copied: a NumPy port of the function's arithmetic.
# Arithmetic kept: d_k = q.size()[-1]; attn_logits = q @ k^T; attn_logits /
# math.sqrt(d_k) (the scale AFTER the product; a Python float applied as float32);
# masked_fill(mask == 0, -9e15) with the notebook's mask 1 = may attend, 0 =
# forbidden (-9e15 in float32 is -9000000202358784); F.softmax(dim=-1)
# (max-subtracted); values = attention @ v; float32 (torch's default float).
# Changed: torch -> NumPy float32; the notebook's mask (0 = forbidden) built from
# the mask argument (true = forbidden); one head, no projections; returns (values,
# attention) as (O, A).
# Expected departures (before running): a finite fill -9e15 instead of -inf:
# forbidden keys get weight where the allowed logits lie near or below -9e15
# (exact_zeros); a fully forbidden row is uniform (mean of V), not refused;
# float32. Expected names: text run: finite_fill + low_precision (float32), the
# fill's value uncertain: -9e15 is not a candidate fill (the nearest are -1e10
# and -1e18), so a wrong value (-1e18, if no battery row has allowed logits
# between -1e18 and -9e15) or no name; own [--precision float32]: finite_fill
# on exact_zeros and fully_forbidden_refused, the value as in the text run.
import math

import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    d_k = q.shape[-1]
    attn_logits = q @ k.T
    attn_logits = attn_logits / np.float32(math.sqrt(d_k))
    if mask is not None:
        keep = ~np.asarray(mask, bool)
        attn_logits = np.where(keep == 0, np.float32(-9e15), attn_logits)
    e = np.exp(attn_logits - attn_logits.max(axis=-1, keepdims=True))
    attention = e / e.sum(axis=-1, keepdims=True)
    return attention @ v, attention

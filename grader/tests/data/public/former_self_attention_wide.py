# Origin: pbloem/former, former/modules.py, SelfAttentionWide.forward (the default of
# TransformerBlock, wide=True) with former/util/util.py mask_, commit
# 59994a9deb2de99535a06f7d86281546b3ce2fa9 (modules.py; util.py read in index copies,
# not at a pinned commit).
# Licence: MIT (repository LICENSE, Copyright (c) 2019 Peter Bloem).
# Not copied: a NumPy port of the arithmetic.
# Arithmetic kept: queries / e**(1/4) and keys / e**(1/4) (e = the head's size in the
# wide layer) BEFORE the product; dot = bmm(queries, keys^T); the masked entries set
# to float('-inf') (mask_, maskval=-inf); F.softmax(dim=2); out = dot @ values; float32.
# Changed: the source masks only the causal upper triangle (mask_ with
# mask_diagonal=False); here the same -inf assignment is made wherever attnlab's mask
# is true (an arbitrary mask, same arithmetic per entry); projections, heads and
# unifyheads left out; returns (O, A).
# Expected departures (before running): float32; a fully forbidden row is NaN (softmax
# of all -inf). Scale e**(-1/4) on q and on k = 1/sqrt(d_k) overall (only rounding).
# Expected names: text: low_precision (float32) + fully_forbidden_answered (NaN) (as
# openai_whisper_qkv.py); own [--precision float32 --fully-forbidden nan]: pass.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    e_dim = q.shape[-1]
    s = np.float32(e_dim ** (1 / 4))
    dot = (q / s) @ (k / s).T
    if mask is not None:
        dot = np.where(np.asarray(mask, bool), np.float32(-np.inf), dot)
    with np.errstate(invalid="ignore"):
        m = dot.max(axis=-1, keepdims=True)
        ex = np.exp(dot - m)
        w = ex / ex.sum(axis=-1, keepdims=True)
    return w @ v, w

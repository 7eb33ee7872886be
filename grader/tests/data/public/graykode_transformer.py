# Origin: graykode/nlp-tutorial, 5-1.Transformer/Transformer-Torch.py,
# ScaledDotProductAttention.forward, commit 6e171b914ed28eb04dc9176916a99e9a996a7951.
# Licence: MIT (repository LICENSE, Copyright (c) 2018 TaeHwan Jung).
# Not copied: a NumPy port of the arithmetic.
# Arithmetic kept: scores = Q K^T / np.sqrt(d_k) where d_k is the module constant 64
# (not the size of the Q it is given); scores.masked_fill_(attn_mask, -1e9) with
# attn_mask TRUE = masked (as attnlab's: "one is masking"); nn.Softmax(dim=-1);
# context = attn V; float32 (torch default; np.sqrt(64) = 8.0 keeps float32).
# Changed: the projections, heads, layer norm and the residual left out; returns
# (context, attn).
# Expected departures (before running): scale 1/8 whatever d_k (right only for d_k =
# 64; a constant factor, as ng_video_lecture_head.py's C**-0.5); fill -1e9 (fully
# forbidden row uniform, exact_zeros fails); float32. Expected names: text:
# finite_fill (fill = -1e9) + low_precision (float32) where the scale does not show
# (rows with a forbidden key or small logits), "no known mistake" or a wrong_scale
# member where it does (a constant 1/8 is not a catalogued scale unless d_k = 64);
# own [--precision float32]: finite_fill (-1e9), the scale as in text.
import numpy as np

D_K = 64


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    scores = (q @ k.T) / np.float32(np.sqrt(D_K))
    if mask is not None:
        scores = np.where(np.asarray(mask, bool), np.float32(-1e9), scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    attn = e / e.sum(axis=-1, keepdims=True)
    return attn @ v, attn

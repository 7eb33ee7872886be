# Origin: PaddlePaddle/Paddle, python/paddle/nn/layer/transformer.py,
# MultiHeadAttention.forward and _convert_attention_mask, commit
# 580d133a854780e0fbce73b08259b0749308c030 (the stored version read through the
# code index; the repository is too large to fetch here).
# Licence: Apache-2.0 (Copyright (c) 2020 PaddlePaddle Authors).
# Not copied: a NumPy reimplementation of the arithmetic.
# Arithmetic kept: q * head_dim**-0.5 BEFORE the product; product = q k^T; a bool
# KEEP mask (True = attend) converted by (cast(mask, float32) - 1.0) * 1e9 and ADDED
# (allowed: +0, forbidden: -1e9); F.softmax (max-subtracted); weights @ v; float32.
# Changed: paddle -> NumPy float32; one head; no projections, no dropout; the mask
# argument (true = forbidden) inverted to Paddle's keep mask; returns (O, A).
# Expected departures (before running): additive -1e9 (Lemma 2 asks -inf); a fully
# forbidden row is the softmax of S - 1e9: uniform in float32 on small logits, not
# refused; float32. The same arithmetic as tensor2tensor_dot_product.py (reached by
# a different mask conversion). Expected name: finite_fill (fill = -1e9, added to
# the logits) with low_precision; [--precision float32]: finite_fill (-1e9 added).
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    product = (q * np.float32(q.shape[-1] ** -0.5)) @ k.T
    if mask is not None:
        keep = ~np.asarray(mask, bool)
        product = product + (keep.astype(np.float32) - np.float32(1.0)) * np.float32(1e9)
    e = np.exp(product - product.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w

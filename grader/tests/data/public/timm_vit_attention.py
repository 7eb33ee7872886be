# Origin: huggingface/pytorch-image-models, timm/models/vision_transformer.py,
# ParallelScalingBlock.forward, the non-fused path (fused_attn False, e.g.
# TIMM_FUSED_ATTN=0), commit 0041cb7ba4ab3b8b3bce5bf105300f0ee57ffc22; its
# resolve_self_attn_mask / maybe_add_mask (timm.layers) as read in a copy
# labelled "adapted from timm", not at that commit.
# Licence: Apache-2.0 (Copyright 2020 Ross Wightman). Not copied: a NumPy reimplementation.
# Arithmetic kept: q = q * scale (head_dim ** -0.5) BEFORE the product;
# attn = q @ k^T; a bool mask (true = keep) becomes an additive bias of 0 / -inf;
# attn + bias; softmax(dim=-1); attn @ v.
# Changed: torch -> NumPy float32; one head, no projections, no qk-norm; the mask
# argument (true = forbidden) inverted to timm's keep mask.
# Expected departures (before running): float32; a fully forbidden row NaN
# (all -inf), not refused. With --precision float32 --fully-forbidden nan: pass.
# Text run: low_precision (float32) + fully_forbidden_answered (NaN).
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    q = q * np.float32(q.shape[-1] ** -0.5)
    attn = q @ k.T
    if mask is not None:
        keep = ~np.asarray(mask, bool)
        attn = attn + np.where(keep, np.float32(0), np.float32(-np.inf))
    with np.errstate(invalid="ignore"):
        e = np.exp(attn - attn.max(axis=-1, keepdims=True))
        attn = e / e.sum(axis=-1, keepdims=True)
    return attn @ v, attn

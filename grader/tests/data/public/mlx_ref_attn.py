# Origin: ml-explore/mlx, python/tests/test_fast_sdpa.py, mlx_ref_attn (the
# reference the fused scaled_dot_product_attention is tested against), commit
# d6977f2a57538ab454d2e798d1c6b4b9e77a25f9 as listed by the code index (the text
# read is an index copy of that test file, not checked byte for byte at that commit).
# Licence: MIT (Copyright (c) 2023 ml-explore). Not copied: a NumPy reimplementation.
# Arithmetic kept: q = q * scale (cast to q's dtype) BEFORE the product, with the
# tests' scale = 1/sqrt(D); scores = q @ k^T; a bool mask (true = keep):
# scores = where(mask, scores, finfo(float32).min); softmax(precise=True)
# (float32 here anyway); scores @ v.
# Changed: mlx -> NumPy float32; one head (no GQA repeat), no sinks; the mask
# argument (true = forbidden) inverted to MLX's keep mask.
# Expected departures (before running): finite fill finfo(float32).min; a fully
# forbidden row uniform, not refused; float32. With --precision float32:
# fully_forbidden_refused and exact_zeros fail (as Flax, same fill).
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    q = q * np.float32(1.0 / np.sqrt(q.shape[-1]))
    scores = q @ k.T
    if mask is not None:
        keep = ~np.asarray(mask, bool)
        scores = np.where(keep, scores, np.finfo(np.float32).min)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    scores = e / e.sum(axis=-1, keepdims=True)
    return scores @ v, scores

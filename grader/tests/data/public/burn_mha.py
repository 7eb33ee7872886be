# Origin: tracel-ai/burn, crates/burn-nn/src/modules/attention/mha.rs
# (MultiHeadAttention::attn_scores and attn_weights, default config: min_float =
# -1.0e4, quiet_softmax = false) and crates/burn-backend/src/backend/ops/activation.rs
# (the default softmax), commit 2c06be351006851d42fdb6df16b976f4a82d9747.
# Licence: MIT OR Apache-2.0 (MIT chosen).
# Not copied: a NumPy port of the Rust arithmetic.
# Arithmetic kept: scores = q k^T, then div_scalar(sqrt(d_k) as f32); mask_fill(mask,
# min_float) with the mask TRUE = MASKED (as ours) and min_float -1e4 (cast to
# float32); softmax = exp(x - max) / sum; context = weights @ v; float32 (the
# default float element of burn's backends).
# Changed: Rust/burn tensors -> NumPy float32; one head; the linear projections
# left out; no dropout (inference); the pad mask and the attention mask merged
# into the mask argument; returns (O, A).
# Expected departures (before running): finite fill -1e4 (Lemma 2 asks -inf): a fully
# forbidden row is uniform, not refused; forbidden keys get weight where the
# allowed logits lie near or below -1e4 (exact_zeros); float32. Expected name:
# finite_fill (fill = -1e4) with low_precision (float32) in the text run;
# [--precision float32]: finite_fill (fill = -1e4).
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    scores = (q @ k.T) / np.float32(np.sqrt(np.float32(q.shape[-1])))
    if mask is not None:
        scores = np.where(np.asarray(mask, bool), np.float32(-1.0e4), scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w

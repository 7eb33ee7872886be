# Origin: openai/whisper, whisper/model.py, MultiHeadAttention.qkv_attention
# (the explicit path, without torch's SDPA), commit 0060c61428cc2f432b346c803e405f1cd7fbfc87
# as stored in the code index (that stored copy imports openvino: it may be a
# fork's commit filed under this name; upstream's newer qkv_attention, read
# from memory only, keeps this arithmetic on its non-SDPA path).
# Licence: MIT (Copyright (c) 2022 OpenAI). Not copied: a NumPy reimplementation of the arithmetic.
# Arithmetic kept: scale = d_k ** -0.25 applied to BOTH q and k before the
# product (q * scale) @ (k * scale)^T; + mask (additive: 0 allowed, -inf forbidden,
# as the decoder's triu(-inf) buffer); softmax in float32 (qk.float()); w @ v.
# Changed: torch -> NumPy float32; one head; the additive mask built from the mask
# argument (true = forbidden) instead of the causal buffer.
# Expected departures (before running): float32 arithmetic (the split scale
# d_k^-0.25 on each side rounds twice but is 1/sqrt(d_k) in exact arithmetic, so
# no wrong_scale expected); a fully forbidden row is all -inf, max -inf, so NaN,
# not refused. With --precision float32 --fully-forbidden nan: pass. Text run:
# low_precision (float32) + fully_forbidden_answered (NaN), as nanoGPT.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    scale = np.float32(q.shape[-1] ** -0.25)
    qk = (q * scale) @ (k * scale).T
    if mask is not None:
        qk = qk + np.where(np.asarray(mask, bool), np.float32(-np.inf), np.float32(0))
    with np.errstate(invalid="ignore"):
        e = np.exp(qk - qk.max(axis=-1, keepdims=True))
        w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w

# Origin: huggingface/transformers, src/transformers/models/gpt2/modeling_gpt2.py,
# eager attention (GPT2Attention._attn in 4.3x; eager_attention_forward later),
# https://github.com/huggingface/transformers (version not pinned here: the
# arithmetic below is the one of the 4.3x releases as read, not a verified commit).
# Licence: Apache-2.0 (Copyright The HuggingFace Inc. team / OpenAI). Not copied:
# a NumPy reimplementation of the arithmetic.
# Arithmetic kept: w = q @ k^T; w = w / full([], value.size(-1) ** 0.5) (the scale
# uses the VALUE width d_v); causal: w = where(keep, w, finfo(w.dtype).min);
# softmax(dim=-1); out = w @ v; float32.
# Changed: torch -> NumPy float32; the causal buffer replaced by the mask argument
# (true = forbidden); no attention_mask/head_mask/dropout; returns (O, A).
# Expected departures (before running): scale by sqrt(d_v) (wrong whenever
# d_v != d_k); fill with finfo(float32).min instead of -inf, so a fully forbidden
# row gets uniform weights (mean of V), not refused; float32. With --precision
# float32 --fully-forbidden nan or zeros it should still fail: the scale, and the
# uniform row.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    w = q @ k.T
    w = w / np.float32(v.shape[-1] ** 0.5)
    if mask is not None:
        w = np.where(np.asarray(mask, bool), np.finfo(np.float32).min, w)
    e = np.exp(w - w.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w

# Origin: huggingface/transformers, src/transformers/models/llama/modeling_llama.py,
# eager_attention_forward (4.4x releases as read; no commit pinned).
# Licence: Apache-2.0 (Copyright EleutherAI and the HuggingFace Inc. team).
# Not copied: a NumPy reimplementation of the arithmetic.
# Arithmetic kept: attn_weights = (q @ k^T) * scaling (scaling = head_dim ** -0.5,
# applied AFTER the product, unlike Whisper); + causal_mask (additive, finfo.min at
# forbidden keys); softmax(dim=-1, dtype=float32); attn_weights @ v.
# Changed: torch -> NumPy float32; the additive mask built from the mask argument
# (true = forbidden); one head (repeat_kv is the identity); no dropout.
# Expected departures (before running): float32; additive finfo.min: a fully
# forbidden row uniform, not refused. With --precision float32:
# fully_forbidden_refused fails.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    w = (q @ k.T) * np.float32(q.shape[-1] ** -0.5)
    if mask is not None:
        w = w + np.where(np.asarray(mask, bool), np.finfo(np.float32).min, np.float32(0))
    e = np.exp(w - w.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w

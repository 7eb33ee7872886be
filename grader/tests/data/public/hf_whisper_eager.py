# Origin: huggingface/transformers, src/transformers/models/whisper/modeling_whisper.py,
# eager_attention_forward / WhisperAttention (4.4x releases as read; no commit pinned).
# Licence: Apache-2.0 (Copyright The OpenAI Authors and The HuggingFace Inc. team).
# Not copied: a NumPy reimplementation of the arithmetic.
# Arithmetic kept: scaling = head_dim ** -0.5 multiplied into the QUERY before the
# product; w = (q*scaling) @ k^T; w = w + attention_mask (additive: finfo(float32).min
# at forbidden keys, as the causal mask builder fills it); softmax(dim=-1); w @ v; float32.
# Changed: torch -> NumPy float32; the 4-D additive mask built from the mask argument
# (true = forbidden); one head; no dropout/head mask; returns (O, A).
# Expected departures (before running): float32; additive finfo.min: a fully
# forbidden row gives uniform weights, not refused. head_dim = d_k. Expect with
# --precision float32: fully_forbidden_refused fails, the rest pass.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    scaling = np.float32(q.shape[-1] ** -0.5)
    w = (q * scaling) @ k.T
    if mask is not None:
        w = w + np.where(np.asarray(mask, bool), np.finfo(np.float32).min, np.float32(0))
    e = np.exp(w - w.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w

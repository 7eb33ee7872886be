# Origin: huggingface/transformers, src/transformers/models/t5/modeling_t5.py,
# T5Attention.forward (4.4x releases as read; no commit pinned).
# Licence: Apache-2.0 (Copyright Mesh TensorFlow authors, T5 Authors and
# HuggingFace Inc. team). Not copied: a NumPy reimplementation.
# Arithmetic kept: scores = q @ k^T with NO 1/sqrt(d_k) (T5 folds it into the
# initialisation); scores += position_bias, where the bias carries the additive
# mask (finfo(float32).min at forbidden keys); softmax(scores.float(), dim=-1); @ v.
# Changed: torch -> NumPy float32; relative position buckets dropped (bias = mask
# only); one head; no dropout.
# Expected departures (before running): scale 1 instead of 1/sqrt(d_k) (by design
# in T5, a departure from the text); additive finfo.min: a fully forbidden row
# uniform, not refused; float32. With --precision float32: oracle_agreement and
# fully_forbidden_refused fail.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    scores = q @ k.T
    if mask is not None:
        scores = scores + np.where(np.asarray(mask, bool), np.finfo(np.float32).min, np.float32(0))
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    p = e / e.sum(axis=-1, keepdims=True)
    return p @ v, p

# Origin: ml-explore/mlx, python/mlx/nn/layers/transformer.py,
# MultiHeadAttention.__call__ and MultiHeadAttention.create_additive_causal_mask,
# commit 0372cbbcbfbaebd27d5f001332c5e0efe3b1b395 (as stored in the code index;
# later versions may call mx.fast.scaled_dot_product_attention instead).
# Licence: MIT (Copyright 2023 Apple Inc.).
# Not copied: a NumPy reimplementation of the arithmetic for one head.
# Arithmetic kept: scale = math.sqrt(1 / d) (a Python double, applied to the
# float32 queries FIRST); scores = (queries * scale) @ keys; the mask is ADDITIVE
# (scores + mask.astype(scores.dtype)); the layer's own mask helper builds it as
# bool.astype(dtype) * -1e9 (forbidden -1e9, allowed 0: "usually inf but 1e9 is as
# good"); mx.softmax over the last axis (exp(x - max) / sum); values_hat = scores @
# values; float32.
# Changed: mlx -> NumPy float32; no projections (query/key/value/out_proj), one
# head; the mask argument (true = forbidden) turned into the additive mask the
# helper builds (mask * -1e9).
# Expected departures (before running): additive -1e9 (Lemma 2 asks -inf): a
# fully forbidden row is the softmax of S - 1e9, uniform for logits below 32 in
# size (S - 1e9 rounds to -1e9 in float32), not refused; forbidden keys get weight
# when the allowed logits lie near or below -1e9; q scaled first; float32.
# Expected names: text: finite_fill (fill = -1e9, added) + low_precision (float32)
# (as tf_docs_transformer.py, keras_mha.py); own [--precision float32]:
# finite_fill (-1e9 added), some failures possibly unnamed (as keras_mha).
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    scale = np.float32((1 / q.shape[-1]) ** 0.5)
    scores = (q * scale) @ k.T
    if mask is not None:
        additive = np.asarray(mask, bool).astype(np.float32) * np.float32(-1e9)
        scores = scores + additive
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w

# Origin: openai/gpt-2, src/model.py, attn(): multihead_attn, mask_attn_weights,
# attention_mask and softmax, commit 9b63575ef42771a015060c964af2c3da4cf7c8ab (read
# in a snapshot of the repository; src/model.py last changed at
# c2dae27c1029770cea40978813f17a5fd545b883).
# Licence: MIT, in the repository's "Modified MIT License": the MIT permission and
# conditions, with OpenAI's added request about text made with GPT-2 (the model's
# output, not this code) - unsure whether that counts as plain MIT here.
# Not copied: a NumPy port of the arithmetic for one head.
# Arithmetic kept: w = tf.matmul(q, k, transpose_b=True); w = w *
# tf.rsqrt(tf.cast(v.shape[-1], float32)): the scale uses the VALUE width d_v;
# mask_attn_weights: b = 1 where attention is allowed (the causal band), w = w*b -
# tf.cast(1e10, float32)*(1 - b): an allowed logit stays w (w*1 - 0), a forbidden
# one becomes w*0 - 1e10 = -1e10 whatever w was (-1e10 is exact in float32);
# softmax: x - reduce_max, exp, divided by reduce_sum; a = w @ v; float32.
# Changed: TensorFlow 1 -> NumPy float32; one head, no conv1d projections, no past
# state; the causal band b replaced by the keep mask of the argument (true =
# forbidden); returns (a, w) as (O, A).
# Expected departures (before running): scale 1/sqrt(d_v) instead of 1/sqrt(d_k)
# (wrong whenever d_v != d_k); a finite fill -1e10 (in place, through the
# multiplicative mask): forbidden keys get weight where the allowed logits lie
# near or below -1e10, a fully forbidden row is uniform (mean of V), not refused;
# float32. (A forbidden logit that overflowed to +-inf would give 0 * inf = NaN;
# not reachable with finite logits.) Expected names: text run: wrong_scale
# (1/sqrt(d_v)) + finite_fill (fill = -1e10) + low_precision (float32), three
# mistakes, as hf_gpt2_eager.py's three with float lowest; own [--precision
# float32]: wrong_scale (1/sqrt(d_v)) + finite_fill (fill = -1e10).
import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    ex = np.exp(x)
    return ex / ex.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    w = q @ k.T
    w = w * (np.float32(1) / np.sqrt(np.float32(v.shape[-1])))
    if mask is not None:
        b = (~np.asarray(mask, bool)).astype(np.float32)
        w = w * b - np.float32(1e10) * (np.float32(1) - b)
    w = softmax(w)
    return w @ v, w

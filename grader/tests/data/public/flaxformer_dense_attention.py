# Origin: google/flaxformer, flaxformer/components/attention/dense_attention.py,
# MultiHeadDotProductAttention.__call__ (the mask -> attention bias step) and
# dot_product_attention_weights / apply_dot_product_attention_weights_to_values
# (through dot_product_attention), commit 399ea3a85e9807ada653fd0de1a9de627eb0acde
# (a fetched snapshot). The attention T5X's T5 models use.
# Licence: Apache-2.0 (LICENSE at that commit).
# Not copied: a NumPy reimplementation of the arithmetic for one head.
# Arithmetic kept (defaults: rescale_logits = False, rescale_weights = False,
# use_extra_logit = False, float32_logits = False, dtype = float32): NO
# 1/sqrt(depth) ("T5 does not explicitly rescale the attention logits ... folded
# into the initializers"); attn_weights = einsum(query, key); the mask (> 0 =
# ATTEND) turned into a bias by lax.select(mask > 0, 0.0, -1e10) in float32 and
# ADDED; jax.nn.softmax (max, exp(x - max), divided by the sum); astype(float32);
# einsum(weights, value).
# Changed: jax/flax -> NumPy float32; one head, no projections, no dropout
# (enable_dropout False), no cache, no rotary embedding, no extra bias; the mask
# argument (true = forbidden) is mask <= 0.
# Expected departures (before running): three. No scaling (scale = none, the
# source's default); additive -1e10 (Lemma 2 asks -inf): a fully forbidden row is
# the softmax of S - 1e10, uniform for logits below 512 in size (S - 1e10 rounds
# to -1e10 in float32), not refused; forbidden keys get weight when the allowed
# logits lie near or below -1e10; float32. Expected names: text: finite_fill
# (fill = -1e10, added) + wrong_scale (scale = none) + low_precision (float32)
# (as keras_attention_layer.py with -1e9); own [--precision float32]:
# finite_fill (-1e10 added) + wrong_scale (scale = none).
import numpy as np


def attention(Q, K, V, mask=None):
    query, key, value = (np.asarray(x, np.float32) for x in (Q, K, V))
    attn_weights = query @ key.T
    if mask is not None:
        attend = ~np.asarray(mask, bool)
        bias = np.where(attend, np.float32(0.0), np.float32(-1e10))
        attn_weights = attn_weights + bias
    e = np.exp(attn_weights - attn_weights.max(axis=-1, keepdims=True))
    w = (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)
    return w @ value, w

# Ported from code that called torch.nn.functional.scaled_dot_product_attention,
# whose boolean attn_mask means True = "may attend". The port keeps that
# reading and converts the mask to an additive bias the way PyTorch does
# (True -> 0, False -> -inf), so here every forbidden key is attended and
# every allowed one hidden. Expected: inverted_mask, or no key.
# exercise: F3
import numpy as np


def _bool_mask_to_bias(attn_mask, dtype):
    bias = np.zeros(attn_mask.shape, dtype=dtype)
    bias[np.logical_not(attn_mask)] = -np.inf
    return bias


def scaled_dot_product_attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, dtype=np.float64) for x in (Q, K, V))
    L, S = q.shape[-2], k.shape[-2]
    if q.shape[-1] != k.shape[-1] or v.shape[-2] != S:
        raise ValueError("shape mismatch between query, key and value")
    scale_factor = 1 / np.sqrt(q.shape[-1])
    attn_bias = np.zeros((L, S), dtype=q.dtype)
    if mask is not None:
        attn_mask = np.asarray(mask, dtype=bool)  # True = take part in attention
        attn_bias = attn_bias + _bool_mask_to_bias(attn_mask, q.dtype)
    attn_weight = q @ k.T * scale_factor + attn_bias
    row_max = attn_weight.max(axis=-1, keepdims=True)
    if np.isneginf(row_max).any():
        raise ValueError("query %d cannot attend to any key" % int(np.flatnonzero(np.isneginf(row_max))[0]))
    attn_weight = np.exp(attn_weight - row_max)
    attn_weight /= attn_weight.sum(axis=-1, keepdims=True)
    return attn_weight @ v, attn_weight

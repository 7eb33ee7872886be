# A PyTorch user's padding fix, ported to NumPy: softmax over every key,
# padded keys zeroed, and the rows renormalised "safely" with
# `attn / (attn.sum(-1, keepdim=True) + 1e-9)`. A large padded logit still
# flushes the visible weights (to 0 here, not NaN), and a row with every key
# padded comes back as zeros. Expected: post_softmax_renormalised
# (epsilon = 1e-9), or no key.
# exercise: F4
import numpy as np

EPS = 1e-9


def softmax(x, dim=-1):
    x = x - x.max(axis=dim, keepdims=True)
    ex = np.exp(x)
    return ex / ex.sum(axis=dim, keepdims=True)


def scaled_dot_product_attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(t, dtype=np.float64) for t in (Q, K, V))
    if q.shape[-1] != k.shape[-1]:
        raise ValueError("q and k must have the same head dim")
    if k.shape[0] != v.shape[0]:
        raise ValueError("k and v must have the same length")
    attn = softmax(q @ k.T / np.sqrt(q.shape[-1]))
    if mask is not None:
        pad = np.asarray(mask, dtype=bool)
        attn = np.where(pad, 0.0, attn)
        attn = attn / (attn.sum(axis=-1, keepdims=True) + EPS)
    return attn @ v, attn

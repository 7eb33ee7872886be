# Multi-head attention from a blog post that builds the concatenation
# recursively, "the heads so far" glued to each new head: out = [head, out].
# Gluing the new head on the left puts the last head first, so head i meets
# the rows of W_O meant for head h-1-i.
# Expected: mh_heads_reversed, or no key.
# exercise: M1
import numpy as np


def softmax(z):
    z = z - z.max(axis=-1, keepdims=True)
    ez = np.exp(z)
    return ez / ez.sum(axis=-1, keepdims=True)


def head_attention(x, w_q, w_k, w_v, mask):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    if q.shape[1] != k.shape[1]:
        raise ValueError("d_k differs between W_Q and W_K")
    logits = q @ k.T / np.sqrt(q.shape[1])
    if mask is not None:
        logits[mask] = -np.inf
    return softmax(logits) @ v


def multi_head_attention(X, W_Q, W_K, W_V, W_O, mask=None):
    X = np.asarray(X, dtype=np.float64)
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if (~mask).sum(axis=1).min() == 0:
            raise ValueError("every key is masked for some query")
    out = None
    for w_q, w_k, w_v in zip(W_Q, W_K, W_V):
        head = head_attention(X, np.asarray(w_q, float), np.asarray(w_k, float),
                              np.asarray(w_v, float), mask)
        out = head if out is None else np.hstack([head, out])
    return out @ np.asarray(W_O, dtype=np.float64)

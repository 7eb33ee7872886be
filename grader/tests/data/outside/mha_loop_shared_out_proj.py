# Multi-head attention written as the sum over heads, O = sum_i O_i W_O^i
# (equal to [O_1, ..., O_h] W_O when W_O^i is head i's block of rows), in
# the loop style of a course exercise. W_O arrives stacked (h d_v x d_out);
# the code takes its first d_v rows as "the" output projection and reuses
# it for every head.
# Expected: mh_one_wo_per_head, or no key.
# exercise: M1
import numpy as np


def attend(q, k, v, mask):
    """One head: softmax(q k^T / sqrt(d_k)) v with mask True = blocked."""
    logits = q @ k.T / np.sqrt(k.shape[1])
    if mask is not None:
        logits = np.where(mask, -np.inf, logits)
    peak = logits.max(axis=1, keepdims=True)
    if np.isneginf(peak).any():
        raise ValueError("a query has every key blocked")
    w = np.exp(logits - peak)
    return (w / w.sum(axis=1, keepdims=True)) @ v


def multi_head_attention(X, W_Q, W_K, W_V, W_O, mask=None):
    X = np.asarray(X, dtype=float)
    W_O = np.asarray(W_O, dtype=float)
    mask = None if mask is None else np.asarray(mask, dtype=bool)
    n_heads = len(W_Q)
    d_v = np.asarray(W_V[0]).shape[1]
    if W_O.shape[0] != n_heads * d_v:
        raise ValueError("W_O has %d rows, expected %d" % (W_O.shape[0], n_heads * d_v))
    out_proj = W_O[:d_v]                     # d_v x d_out
    out = np.zeros((X.shape[0], W_O.shape[1]))
    for wq, wk, wv in zip(W_Q, W_K, W_V):
        wq, wk, wv = (np.asarray(w, dtype=float) for w in (wq, wk, wv))
        if wq.shape != wk.shape:
            raise ValueError("W_Q and W_K of a head must match")
        head = attend(X @ wq, X @ wk, X @ wv, mask)
        out += head @ out_proj
    return out

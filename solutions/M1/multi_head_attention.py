"""Model solution of M1 (exercises/M1/README.md) in NumPy: multi-head
self-attention, section 32.2.5.

Grade it with: attnlab grade solutions/M1/multi_head_attention.py

Each head is the masked attention of F3 on its own projections (mask before
the softmax, the maximum over the allowed keys subtracted, scale 1/sqrt(d_k)
of the head); the heads are concatenated in order, head i in columns
i d_v .. (i+1) d_v - 1, and the concatenation is multiplied by W_O.
"""
# exercise: M1

import numpy as np


def _head(Q, K, V, forbidden):
    """One head's outputs O_i (T x d_v) for its projections Q, K, V."""
    logits = Q @ K.T / np.sqrt(Q.shape[1])
    # The rule for logits (docs/ARCHITECTURE.md): only allowed entries are
    # read; an allowed logit that overflows to +inf (or is NaN) is refused; one
    # that overflows to -inf gets weight 0, unless its whole row does (rows
    # with every key forbidden are refused before any head runs).
    if (np.isnan(logits) | (logits == np.inf))[~forbidden].any():
        raise ValueError("a logit overflows to +inf")
    logits = np.where(forbidden, -np.inf, logits)
    lost = np.flatnonzero(np.isneginf(logits).all(axis=1))
    if lost.size:
        raise ValueError("every allowed logit of query row %d overflows to -inf" % lost[0])
    weights = np.exp(logits - logits.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    return weights @ V


def multi_head_attention(X, W_Q, W_K, W_V, W_O, mask=None):
    """X: T x d_model; W_Q, W_K, W_V: lists of h matrices (d_model x d_k,
    d_model x d_k, d_model x d_v); W_O: h d_v x d_out; mask: T x T bools
    (True = forbidden) or None.

    Returns O (T x d_out). Raises ValueError for shapes that do not fit and
    for a query row whose every key is forbidden.
    """
    X = np.asarray(X, dtype=np.float64)
    W_O = np.asarray(W_O, dtype=np.float64)
    h = len(W_Q)
    if h == 0 or len(W_K) != h or len(W_V) != h:
        raise ValueError("W_Q, W_K and W_V must list the same number h >= 1 of heads")
    T, d_model = X.shape
    forbidden = np.zeros((T, T), dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    if forbidden.shape != (T, T):
        raise ValueError("mask is %s, expected T x T = %s" % (forbidden.shape, (T, T)))
    empty_rows = np.flatnonzero(forbidden.all(axis=1))
    if empty_rows.size:
        raise ValueError("query row %d has every key forbidden" % empty_rows[0])

    outputs = []
    for i in range(h):
        Wq, Wk, Wv = (np.asarray(W, dtype=np.float64) for W in (W_Q[i], W_K[i], W_V[i]))
        if Wq.shape[0] != d_model or Wk.shape != Wq.shape or Wv.shape[0] != d_model:
            raise ValueError("head %d: the projections do not fit d_model = %d" % (i, d_model))
        outputs.append(_head(X @ Wq, X @ Wk, X @ Wv, forbidden))
    concatenated = np.concatenate(outputs, axis=1)
    if W_O.shape[0] != concatenated.shape[1]:
        raise ValueError("W_O has %d rows, expected h d_v = %d" % (W_O.shape[0], concatenated.shape[1]))
    return concatenated @ W_O

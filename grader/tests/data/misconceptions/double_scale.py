# exercise: F3
"""Test fixture for the feedback map: the logits are divided by d_k instead
of sqrt(d_k) (the hint must name the doubled scale, Lemma 1)."""

import numpy as np


def _check(Q, K, V):
    Q, K, V = (np.asarray(M, dtype=np.float64) for M in (Q, K, V))
    if K.shape[1] != Q.shape[1]:
        raise ValueError("d_k mismatch")
    if V.shape[0] != K.shape[0]:
        raise ValueError("K and V differ in row count")
    return Q, K, V


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = _check(Q, K, V)
    S = Q @ K.T / Q.shape[1]  # BUG: d_k, not sqrt(d_k)
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.all(axis=1).any():
            raise ValueError("a row has every key forbidden")
        S = np.where(mask, -np.inf, S)
    A = np.exp(S - S.max(axis=1, keepdims=True))
    A /= A.sum(axis=1, keepdims=True)
    return A @ V, A

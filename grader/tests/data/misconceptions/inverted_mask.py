# exercise: F3
"""Test fixture for the feedback map: the mask is read with PyTorch's
polarity (True = may attend), so weight goes to the forbidden keys."""

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
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        S = np.where(np.asarray(mask, dtype=bool), S, -np.inf)  # BUG: keeps the forbidden keys
    with np.errstate(invalid="ignore"):
        A = np.exp(S - S.max(axis=1, keepdims=True))
        A /= A.sum(axis=1, keepdims=True)
    return A @ V, A

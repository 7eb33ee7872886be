# exercise: F3
"""Test fixture: correct, but every case takes half a second (the
per-submission time limit stops it)."""

import time

import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    time.sleep(0.5)
    Q, K, V = (np.asarray(M, dtype=np.float64) for M in (Q, K, V))
    if K.shape[1] != Q.shape[1]:
        raise ValueError("d_k mismatch")
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.all(axis=1).any():
            raise ValueError("a row has every key forbidden")
        S = np.where(mask, -np.inf, S)
    A = np.exp(S - S.max(axis=1, keepdims=True))
    A /= A.sum(axis=1, keepdims=True)
    return A @ V, A

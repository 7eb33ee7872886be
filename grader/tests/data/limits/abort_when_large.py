# exercise: F3
"""Test fixture: correct attention, but it calls os.abort() whenever
T_q >= 5 and T_v >= 5 (a crash only some cases reach: the restart cap of a
property must not turn into made-up failures of the others)."""

import os

import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(M, dtype=np.float64) for M in (Q, K, V))
    if Q.shape[0] >= 5 and K.shape[0] >= 5:
        os.abort()
    if K.shape[1] != Q.shape[1] or Q.shape[1] == 0:
        raise ValueError("d_k mismatch")
    if V.shape[0] != K.shape[0]:
        raise ValueError("K and V need the same rows")
    if not (np.isfinite(Q).all() and np.isfinite(K).all() and np.isfinite(V).all()):
        raise ValueError("not finite")
    T_q, T_v = Q.shape[0], K.shape[0]
    forbidden = np.zeros((T_q, T_v), bool) if mask is None else np.asarray(mask, bool)
    if forbidden.shape != (T_q, T_v):
        raise ValueError("mask shape")
    if T_q == 0:
        return np.zeros((0, V.shape[1])), np.zeros((0, T_v))
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if not np.isfinite(S[~forbidden]).all():
        raise ValueError("a logit overflows")
    S = np.where(forbidden, -np.inf, S)
    if forbidden.all(axis=1).any():
        raise ValueError("a row has every key forbidden")
    A = np.exp(S - S.max(axis=1, keepdims=True))
    A /= A.sum(axis=1, keepdims=True)
    return A @ V, A

"""Model solution of B1 (exercises/B1/README.md): the backward pass of
attention in NumPy, written from the definition. The gradients of
L = sum(dO * O), O = attention(Q, K, V, mask), with FlashAttention-2's
D = rowsum(dO * O) (Dao 2023, section 2.2).
Grade it with: attnlab grade solutions/B1/attention_backward.py
"""
# exercise: B1

import numpy as np


def attention_backward(Q, K, V, dO, mask=None, scale=None, causal=False):
    """(dQ, dK, dV) for Q (T_q x d_k), K (T_v x d_k), V (T_v x d_v), dO
    (T_q x d_v); mask True = forbidden; scale None = 1/sqrt(d_k); causal
    forbids key j for query i when j > i. Raises ValueError for shapes that
    do not fit or a query row with every key forbidden."""
    Q, K, V, dO = (np.asarray(x, dtype=np.float64) for x in (Q, K, V, dO))
    T_q, d_k = Q.shape
    T_v = K.shape[0]
    if K.shape[1] != d_k or V.shape[0] != T_v or dO.shape != (T_q, V.shape[1]):
        raise ValueError("shapes do not fit: Q %s, K %s, V %s, dO %s"
                         % (Q.shape, K.shape, V.shape, dO.shape))
    if scale is None:
        scale = 1.0 / np.sqrt(d_k)
    forbidden = np.zeros((T_q, T_v), dtype=bool)
    if mask is not None:
        forbidden |= np.asarray(mask, dtype=bool)
    if causal:
        forbidden |= np.triu(np.ones((T_q, T_v), dtype=bool), k=1)
    if T_v == 0 or forbidden.all(axis=1).any():
        rows = np.flatnonzero(forbidden.all(axis=1)) if T_v else np.arange(T_q)
        if rows.size:
            raise ValueError("query row %d has every key forbidden" % rows[0])
    S = np.where(forbidden, -np.inf, scale * (Q @ K.T))
    P = np.exp(S - S.max(axis=1, keepdims=True)) if T_q else np.zeros((0, T_v))
    P = np.where(forbidden, 0.0, P)
    if T_q:
        P /= P.sum(axis=1, keepdims=True)
    O = P @ V
    dV = P.T @ dO
    dP = dO @ V.T
    D = np.sum(dO * O, axis=1, keepdims=True)
    dS = P * (dP - D)
    dQ = scale * (dS @ K)
    dK = scale * (dS.T @ Q)
    return dQ, dK, dV

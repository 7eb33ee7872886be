import math

import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    """Elif -- F3 with explicit loops for the scores."""
    T_q, d_k = Q.shape
    T_v = K.shape[0]
    if V.shape[0] != T_v:
        raise ValueError("K and V must have the same number of rows")
    S = np.empty((T_q, T_v))
    for i in range(T_q):
        for j in range(T_v):
            S[i, j] = sum(Q[i, t] * K[j, t] for t in range(d_k)) / math.sqrt(d_k)
    if mask is not None:
        for i in range(T_q):
            if mask[i].all():
                raise ValueError(f"query {i} has every key masked")
        S[mask] = -np.inf
    S = S - S.max(axis=1, keepdims=True)
    A = np.exp(S)
    A = A / A.sum(axis=1, keepdims=True)
    return A @ V, A

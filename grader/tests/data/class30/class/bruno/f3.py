"""F3 - attention with loops (Bruno). I wanted to see every step."""
import math

import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    T_q, d_k = len(Q), len(Q[0])
    T_v = len(K)
    if len(K[0]) != d_k:
        raise ValueError("Q and K need the same d_k")
    if len(V) != T_v:
        raise ValueError("K and V need the same T_v")
    d_v = len(V[0])
    scale = 1.0 / math.sqrt(d_k)
    A = np.zeros((T_q, T_v))
    O = np.zeros((T_q, d_v))
    for i in range(T_q):
        allowed = [j for j in range(T_v) if mask is None or not mask[i][j]]
        if not allowed:
            raise ValueError("query %d cannot see any key" % i)
        scores = {}
        for j in allowed:
            s = 0.0
            for t in range(d_k):
                s += Q[i][t] * K[j][t]
            scores[j] = s * scale
        m = max(scores.values())
        total = 0.0
        for j in allowed:
            A[i, j] = math.exp(scores[j] - m)
            total += A[i, j]
        for j in allowed:
            A[i, j] /= total
        for j in allowed:
            for c in range(d_v):
                O[i, c] += A[i, j] * V[j][c]
    return O, A

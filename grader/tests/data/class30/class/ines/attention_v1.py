# first try
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    if Q.shape[1] != K.shape[1]:
        raise ValueError("d_k")
    S = Q @ K.T
    if mask is not None:
        if mask.all(axis=1).any():
            raise ValueError("fully masked row")
        S[mask] = -np.inf
    S = S - S.max(axis=1, keepdims=True)
    A = np.exp(S)
    A = A / A.sum(axis=1, keepdims=True)
    return A @ V, A

import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    if Q.shape[1] != K.shape[1]:
        raise ValueError("d_k mismatch")
    if K.shape[0] != V.shape[0]:
        raise ValueError("T_v mismatch")
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        if mask.all(axis=1).any():
            raise ValueError("fully masked query")
        S = np.where(mask, -np.inf, S)
    S = S - S.max(axis=0)
    A = np.exp(S)
    A = A / A.sum(axis=0)
    return A @ V, A

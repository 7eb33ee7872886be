import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    # self-attention: queries, keys and values come from the same sequence
    if Q.shape != K.shape:
        raise ValueError(f"Q {Q.shape} and K {K.shape} must have the same shape")
    if K.shape[0] != V.shape[0]:
        raise ValueError("K and V must have the same length")
    T, d_k = Q.shape
    S = Q @ K.T / np.sqrt(d_k)
    if mask is not None:
        if mask.all(axis=1).any():
            raise ValueError("fully masked row")
        S = np.where(mask, -np.inf, S)
    S = S - S.max(axis=1, keepdims=True)
    A = np.exp(S)
    A = A / A.sum(axis=1, keepdims=True)
    return A @ V, A

import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    assert Q.shape[1] == K.shape[1], "Q and K must have the same d_k"
    assert K.shape[0] == V.shape[0], "K and V must have the same T_v"
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    with np.errstate(invalid="ignore"):
        S = S - S.max(axis=1, keepdims=True)   # a fully masked row becomes nan
        A = np.exp(S)
        A = A / A.sum(axis=1, keepdims=True)
    return A @ V, A

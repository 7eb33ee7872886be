import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    """Quentin. mask[i, j] says whether query i may look at key j."""
    if Q.shape[1] != K.shape[1]:
        raise ValueError("different d_k")
    if K.shape[0] != V.shape[0]:
        raise ValueError("different T_v")
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        visible = np.asarray(mask, dtype=bool)
        if (~visible).all(axis=1).any():
            raise ValueError("a query cannot see any key")
        S = np.where(visible, S, -np.inf)
    S = S - S.max(axis=1, keepdims=True)
    A = np.exp(S)
    A /= A.sum(axis=1, keepdims=True)
    return A @ V, A

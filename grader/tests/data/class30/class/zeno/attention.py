import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    if Q.shape[1] != K.shape[1]:
        raise ValueError("Q, K: d_k differs")
    if K.shape[0] != V.shape[0]:
        raise ValueError("K, V: T_v differs")
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        if mask.all(axis=1).any():
            raise ValueError("a row is fully masked")
        S[mask] = -np.inf
    S -= S.max(axis=1, keepdims=True)
    A = np.exp(S)
    A /= A.sum(axis=1, keepdims=True)
    O = V.T @ A.T          # (d_v x T_v)(T_v x T_q)
    return O, A

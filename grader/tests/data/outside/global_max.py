# Subtracts the maximum of the whole matrix ("np.max(x)" without an axis),
# a common slip in blog code. Expected: global_max, or no key.
# exercise: F3
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = np.asarray(Q, float), np.asarray(K, float), np.asarray(V, float)
    if Q.shape[1] != K.shape[1] or K.shape[0] != V.shape[0]:
        raise ValueError("bad shapes")
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        mask = np.asarray(mask, bool)
        if mask.all(axis=1).any():
            raise ValueError("fully masked row")
        S = np.where(mask, -np.inf, S)
    e = np.exp(S - np.max(S))
    A = e / e.sum(axis=1, keepdims=True)
    return A @ V, A

import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    """Mateo -- F3."""
    if Q.shape[1] != K.shape[1]:
        raise ValueError("Q and K must have the same d_k")
    if K.shape[0] != V.shape[0]:
        raise ValueError("K and V must have the same T_v")
    d = V.shape[1]
    scores = Q @ K.T / np.sqrt(d)
    if mask is not None:
        if mask.all(axis=1).any():
            raise ValueError("a row is fully masked")
        scores = np.where(mask, -np.inf, scores)
    scores -= scores.max(axis=1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=1, keepdims=True)
    return weights @ V, weights

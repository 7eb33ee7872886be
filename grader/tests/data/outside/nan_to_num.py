# "Robust" attention that cleans its inputs with np.nan_to_num first, as some
# preprocessing code does: a NaN input silently becomes 0 (and Inf a huge
# finite number). Expected: non_finite_swallowed, or no key.
# exercise: F3
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = (np.nan_to_num(np.asarray(M, dtype=np.float64)) for M in (Q, K, V))
    if Q.shape[1] != K.shape[1] or K.shape[0] != V.shape[0]:
        raise ValueError("incompatible shapes")
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != scores.shape or mask.all(axis=-1).any():
            raise ValueError("bad mask")
        scores = np.where(mask, -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights @ V, weights

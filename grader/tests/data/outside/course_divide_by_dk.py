# A course repository's attention that divides the scores by d_k (the
# "normalise by the dimension" slip). Expected: wrong_scale (scale = 1/d_k),
# never "not divided by sqrt(d_k)".
# exercise: F3
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = np.asarray(Q, float), np.asarray(K, float), np.asarray(V, float)
    if Q.shape[1] != K.shape[1] or K.shape[0] != V.shape[0]:
        raise ValueError("bad shapes")
    scores = Q @ K.T / Q.shape[1]
    if mask is not None:
        mask = np.asarray(mask, bool)
        if mask.all(axis=1).any():
            raise ValueError("fully masked row")
        scores = np.where(mask, -np.inf, scores)
    scores = scores - scores.max(axis=1, keepdims=True)
    e = np.exp(scores)
    A = e / e.sum(axis=1, keepdims=True)
    return A @ V, A

# Written the way a public NumPy tutorial writes attention: masked_fill with
# -1e9, the max trick, A @ V. Expected diagnosis: finite_fill, or no key.
# exercise: F3
import numpy as np


def softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = np.asarray(Q, float), np.asarray(K, float), np.asarray(V, float)
    if Q.shape[1] != K.shape[1]:
        raise ValueError("shapes not aligned")
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    if mask is not None:
        mask = np.asarray(mask, bool)
        if mask.all(axis=-1).any():
            raise ValueError("a query row attends to nothing")
        scores = np.where(mask, -1e9, scores)
    weights = softmax(scores)
    return weights @ V, weights

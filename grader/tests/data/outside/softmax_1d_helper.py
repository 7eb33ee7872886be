# The softmax helper of a NumPy tutorial, written for vectors (np.max(x) and
# np.sum(x) without an axis) and then reused on the whole score matrix: one
# maximum and one normaliser for every row. Expected: global_normaliser, or
# no key.
# exercise: F3
import numpy as np


def softmax(x):
    """Compute softmax values for each sets of scores in x."""
    e_x = np.exp(x - np.max(x))
    return e_x / e_x.sum()


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = np.asarray(Q, float), np.asarray(K, float), np.asarray(V, float)
    if Q.shape[1] != K.shape[1] or K.shape[0] != V.shape[0]:
        raise ValueError("shapes do not fit")
    scores = np.dot(Q, K.T) / np.sqrt(K.shape[1])
    if mask is not None:
        mask = np.asarray(mask, bool)
        if mask.all(axis=1).any():
            raise ValueError("a query row has every key masked")
        scores[mask] = -np.inf
    weights = softmax(scores)
    return np.dot(weights, V), weights

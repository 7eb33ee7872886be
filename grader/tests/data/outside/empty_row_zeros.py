# Careful masking (-inf before a stable softmax), but a query row with every
# key masked is "handled" the way padding-heavy batch code often does: its
# weights (NaN after -inf - (-inf)) are replaced by zeros, so the row
# attends to nothing instead of being refused.
# Expected: fully_forbidden_answered (zeros), or no key.
# exercise: F3
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    if Q.shape[1] != K.shape[1]:
        raise ValueError("Q is %s but K is %s: d_k differs" % (Q.shape, K.shape))
    if K.shape[0] != V.shape[0]:
        raise ValueError("K and V must have one row per key")
    scores = Q @ K.T / np.sqrt(Q.shape[1])
    row_all_masked = np.zeros(scores.shape[0], dtype=bool)
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != scores.shape:
            raise ValueError("mask must be %s" % (scores.shape,))
        scores = np.where(mask, -np.inf, scores)
        row_all_masked = mask.all(axis=1)
    with np.errstate(invalid="ignore"):
        scores = scores - scores.max(axis=1, keepdims=True)
        weights = np.exp(scores)
        weights = weights / weights.sum(axis=1, keepdims=True)
    weights = np.where(row_all_masked[:, None], 0.0, weights)  # padded query: attend to nothing
    return weights @ V, weights

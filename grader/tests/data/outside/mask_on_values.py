# "Masking the values": the softmax runs over every key, and the mask is
# used to drop the hidden keys' value rows from each query's weighted sum,
# as some padding code does (`(weights * keep) @ V`), while the weights are
# returned as computed. Expected: mask_on_values, or no key.
# exercise: F3
import numpy as np


def stable_softmax(x):
    shifted = x - np.max(x, axis=-1, keepdims=True)
    num = np.exp(shifted)
    return num / np.sum(num, axis=-1, keepdims=True)


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = np.asarray(Q, float), np.asarray(K, float), np.asarray(V, float)
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError("Q and K need the same d_k")
    if K.shape[0] != V.shape[0]:
        raise ValueError("K and V need the same length")
    weights = stable_softmax(Q @ K.T / np.sqrt(Q.shape[-1]))
    if mask is None:
        return weights @ V, weights
    keep = ~np.asarray(mask, dtype=bool)
    if not keep.any(axis=-1).all():
        raise ValueError("a query row keeps no key")
    # out[i] = sum_j weights[i, j] * keep[i, j] * V[j]
    out = np.einsum("ij,ij,jd->id", weights, keep.astype(float), V)
    return out, weights

# AllenNLP-like masked softmax: softmax(vector * keep) * keep, renormalised
# with a 1e-13 epsilon. Expected: multiplicative_mask, or no key; never
# "mask after softmax".
# exercise: F3
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = np.asarray(Q, float), np.asarray(K, float), np.asarray(V, float)
    if Q.shape[1] != K.shape[1] or K.shape[0] != V.shape[0]:
        raise ValueError("bad shapes")
    S = Q @ K.T / np.sqrt(Q.shape[1])
    keep = np.ones_like(S) if mask is None else (~np.asarray(mask, bool)).astype(float)
    x = S * keep
    e = np.exp(x - x.max(axis=1, keepdims=True))
    A = e / e.sum(axis=1, keepdims=True)
    A = A * keep
    A = A / (A.sum(axis=1, keepdims=True) + 1e-13)
    return A @ V, A

import numpy as np


def softmax(x):
    x = x - x.max(axis=1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=1, keepdims=True)


def scaled_dot_product_attention(Q, K, V, mask=None):
    if Q.shape[1] != K.shape[1]:
        raise ValueError("Q and K do not have the same d_k")
    if K.shape[0] != V.shape[0]:
        raise ValueError("K and V do not have the same number of rows")
    A = softmax(Q @ K.T / np.sqrt(Q.shape[1]))
    if mask is not None:
        if mask.all(axis=1).any():
            raise ValueError("some query has no key to attend to")
        A = np.where(mask, 0.0, A)  # masked positions get no attention
    return A @ V, A

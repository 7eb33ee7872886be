import numpy as np

from utils import softmax


def scaled_dot_product_attention(Q, K, V, mask=None):
    if Q.shape[1] != K.shape[1]:
        raise ValueError("d_k mismatch")
    if K.shape[0] != V.shape[0]:
        raise ValueError("T_v mismatch")
    logits = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        if mask.all(axis=1).any():
            raise ValueError("query row without keys")
        logits = np.where(mask, -np.inf, logits)
    A = softmax(logits, axis=1)
    return A @ V, A

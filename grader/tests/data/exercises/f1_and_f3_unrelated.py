"""An F1 answer and an F3 answer in one file, the F3 one not using the F1
one: still ambiguous (recognise.hpp)."""
import numpy as np


def softmax_rows(S):
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def scaled_dot_product_attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    # softmax_rows(S) would do the same; this comment does not count as a call
    return A @ V, A

"""F3 written on top of the student's own F1 and F2 (recognise.hpp: F3 wins,
because scaled_dot_product_attention uses masked_softmax, which uses
softmax_rows)."""
import numpy as np


def softmax_rows(S):
    S = S - S.max(axis=1, keepdims=True)
    E = np.exp(S)
    return E / E.sum(axis=1, keepdims=True)


def masked_softmax(S, mask):
    if mask is not None:
        if mask.all(axis=1).any():
            raise ValueError("a query row has every key forbidden")
        S = np.where(mask, -np.inf, S)
    return softmax_rows(S)


def scaled_dot_product_attention(Q, K, V,
                                 mask=None):
    if Q.shape[1] != K.shape[1]:
        raise ValueError("d_k mismatch")
    A = masked_softmax(Q @ K.T / np.sqrt(Q.shape[1]), mask)
    return A @ V, A

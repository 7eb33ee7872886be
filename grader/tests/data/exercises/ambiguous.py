"""Defines F1's entry next to F3's, which calls it: F3 builds on it (recognise.hpp)."""
import numpy as np


def softmax_rows(S):
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def scaled_dot_product_attention(Q, K, V, mask=None):
    A = softmax_rows(Q @ K.T / np.sqrt(Q.shape[1]))
    return A @ V, A

"""A multi-head file that defines the single-head attention it calls: M1."""
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V, A


def multi_head_attention(X, W_Q, W_K, W_V, W_O, mask=None):
    heads = [scaled_dot_product_attention(X @ q, X @ k, X @ v, mask)[0]
             for q, k, v in zip(W_Q, W_K, W_V)]
    return np.concatenate(heads, axis=1) @ W_O

# mutant: heads_reversed
# exercise: M1
# misconception: the heads' outputs are concatenated last head first, so head i meets the row block of W_O meant for head h-1-i.
# violates: O = [O_1, ..., O_h] W_O, section 32.2.5 (head i in columns i d_v to (i+1) d_v - 1)
# caught by: heads_in_order
# key: mh_heads_reversed
import numpy as np


def _attention(Q, K, V, forbidden):
    S = np.where(forbidden, -np.inf, Q @ K.T / np.sqrt(Q.shape[1]))
    if np.isneginf(S.max(axis=1)).any():
        raise ValueError("a query row has every key forbidden")
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return (E / E.sum(axis=1, keepdims=True)) @ V


def multi_head_attention(X, W_Q, W_K, W_V, W_O, mask=None):
    forbidden = np.zeros((X.shape[0],) * 2, dtype=bool) if mask is None else mask
    outputs = [_attention(X @ q, X @ k, X @ v, forbidden) for q, k, v in zip(W_Q, W_K, W_V)]
    return np.concatenate(outputs[::-1], axis=1) @ W_O  # BUG: last head first

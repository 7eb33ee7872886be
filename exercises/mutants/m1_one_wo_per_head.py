# mutant: one_wo_per_head
# exercise: M1
# misconception: every head's output is multiplied by the same first d_v rows of W_O and the products are summed, instead of the concatenation times the whole W_O.
# violates: O = [O_1, ..., O_h] W_O, section 32.2.5 (head i meets its own row block of W_O)
# caught by: oracle_agreement
# key: mh_one_wo_per_head
import numpy as np


def _attention(Q, K, V, forbidden):
    S = np.where(forbidden, -np.inf, Q @ K.T / np.sqrt(Q.shape[1]))
    if np.isneginf(S.max(axis=1)).any():
        raise ValueError("a query row has every key forbidden")
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return (E / E.sum(axis=1, keepdims=True)) @ V


def multi_head_attention(X, W_Q, W_K, W_V, W_O, mask=None):
    forbidden = np.zeros((X.shape[0],) * 2, dtype=bool) if mask is None else mask
    d_v = W_V[0].shape[1]
    O = np.zeros((X.shape[0], W_O.shape[1]))
    for q, k, v in zip(W_Q, W_K, W_V):
        O += _attention(X @ q, X @ k, X @ v, forbidden) @ W_O[:d_v]  # BUG: the same block for every head
    return O

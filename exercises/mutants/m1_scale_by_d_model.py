# mutant: scale_by_d_model
# exercise: M1
# misconception: each head's logits are divided by sqrt(d_model), the width of X, instead of sqrt(d_k), the width of the head's queries and keys.
# violates: Lemma 1 applied per head, sections 32.2.3 and 32.2.5 (the scale is 1/sqrt(d_k) of the dot product taken)
# caught by: oracle_agreement
# key: mh_scale_by_d_model
import numpy as np


def _attention(Q, K, V, forbidden, d_model):
    S = np.where(forbidden, -np.inf, Q @ K.T / np.sqrt(d_model))  # BUG: d_model, not d_k
    if np.isneginf(S.max(axis=1)).any():
        raise ValueError("a query row has every key forbidden")
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return (E / E.sum(axis=1, keepdims=True)) @ V


def multi_head_attention(X, W_Q, W_K, W_V, W_O, mask=None):
    forbidden = np.zeros((X.shape[0],) * 2, dtype=bool) if mask is None else mask
    outputs = [_attention(X @ q, X @ k, X @ v, forbidden, X.shape[1])
               for q, k, v in zip(W_Q, W_K, W_V)]
    return np.concatenate(outputs, axis=1) @ W_O

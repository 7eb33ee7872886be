# mutant: mask_not_forwarded
# exercise: M1
# misconception: the multi-head layer takes the mask but never passes it on to the heads, so every head attends to every key (a causal model sees the future).
# violates: section 32.2.5 with Lemma 2: every head applies the same mask before its softmax
# caught by: oracle_agreement
# key: mh_mask_not_forwarded
import numpy as np


def _attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    if np.isneginf(S.max(axis=1)).any():
        raise ValueError("a query row has every key forbidden")
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return (E / E.sum(axis=1, keepdims=True)) @ V


def multi_head_attention(X, W_Q, W_K, W_V, W_O, mask=None):
    outputs = [_attention(X @ q, X @ k, X @ v) for q, k, v in zip(W_Q, W_K, W_V)]  # BUG: mask dropped
    return np.concatenate(outputs, axis=1) @ W_O

# mutant: no_max_shift
# exercise: M1
# misconception: each head exponentiates its raw logits; with large inputs exp() overflows to inf and the head's output becomes inf/inf = NaN.
# violates: shift invariance and the stable softmax, section 32.2.4, in every head of section 32.2.5
# caught by: oracle_agreement
# key: no_max_shift
import numpy as np


def _attention(Q, K, V, forbidden):
    S = np.where(forbidden, -np.inf, Q @ K.T / np.sqrt(Q.shape[1]))
    if np.isneginf(S.max(axis=1)).any():
        raise ValueError("a query row has every key forbidden")
    with np.errstate(over="ignore", invalid="ignore"):
        E = np.exp(S)  # BUG: the row maximum is not subtracted
        return (E / E.sum(axis=1, keepdims=True)) @ V


def multi_head_attention(X, W_Q, W_K, W_V, W_O, mask=None):
    forbidden = np.zeros((X.shape[0],) * 2, dtype=bool) if mask is None else mask
    outputs = [_attention(X @ q, X @ k, X @ v, forbidden) for q, k, v in zip(W_Q, W_K, W_V)]
    return np.concatenate(outputs, axis=1) @ W_O

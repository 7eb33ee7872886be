import numpy as np


def masked_softmax(S, mask):
    S = np.asarray(S, dtype=np.float64)
    forbidden = np.isneginf(S)
    if mask is not None:
        if np.shape(mask) != S.shape:
            raise ValueError("wrong mask shape")
        forbidden = forbidden | np.asarray(mask, dtype=bool)
    if forbidden.all(axis=1).any():
        raise ValueError("fully forbidden row")
    X = np.where(forbidden, -np.inf, S)
    X = X - X.max(axis=1, keepdims=True)
    E = np.exp(X)
    return E / (E.sum(axis=1, keepdims=True) + 1e-10)  # + epsilon for safety

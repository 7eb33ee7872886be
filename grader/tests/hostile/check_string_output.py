# command: check
# expect-exit: 1
# expect-text: A holds strings \(dtype <U[0-9]+\), expected real floating-point numbers
"""Hostile kernel for attnlab check: A is an array of strings holding the
right numbers ("0.25"); a float64 conversion would parse them and pass it."""
import numpy as np


def attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    A = np.exp(S - S.max(axis=1, keepdims=True))
    A /= A.sum(axis=1, keepdims=True)
    return A @ V, np.array([[repr(x) for x in row] for row in A.tolist()]).reshape(A.shape)

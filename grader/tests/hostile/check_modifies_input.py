# command: check
# expect-exit: 1
# expect-text: the function modified its input Q in place
"""Hostile kernel for attnlab check: right answers, but it scales the
caller's Q in place (Q /= sqrt(d_k)); the caller's Q must stay as given."""
import numpy as np


def attention(Q, K, V, mask=None):
    Q /= np.sqrt(Q.shape[1])
    S = Q @ K.T
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    A = np.exp(S - S.max(axis=1, keepdims=True))
    A /= A.sum(axis=1, keepdims=True)
    return A @ V, A

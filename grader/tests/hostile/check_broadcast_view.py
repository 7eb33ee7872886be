# command: check
# expect-exit: 1
# expect-text: O has shape \(1000000, 1000000\) \(1000000000000 entries\), expected \([0-9]+, [0-9]+\)
"""Hostile kernel for attnlab check: O is a broadcast view of 10^12
entries (np.broadcast_to costs nothing until it is read, then 8 TB). It
must be refused by its shape, before anything is read."""
import numpy as np


def attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    A = np.exp(S - S.max(axis=1, keepdims=True))
    A /= A.sum(axis=1, keepdims=True)
    return np.broadcast_to(np.float64(0.5), (10**6, 10**6)), A

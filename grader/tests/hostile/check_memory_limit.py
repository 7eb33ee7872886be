# command: check
# expect-exit: 1
# expect-text: MemoryError
"""Hostile kernel for attnlab check: every call reserves 5 GiB (not
touched). attnlab check holds a kernel to grade's memory limit (--memory,
4096 MiB by default), so the reservation fails."""
import numpy as np


def attention(Q, K, V, mask=None):
    scratch = np.empty(5 << 27)  # 5 GiB of float64
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    A = np.exp(S - S.max(axis=1, keepdims=True))
    A /= A.sum(axis=1, keepdims=True)
    scratch[:1] = 0
    return A @ V, A

# command: check
# expect-exit: 1
# expect-text: O holds complex numbers \(dtype complex128\), expected real floating-point numbers
"""Hostile kernel for attnlab check: right numbers, but O is a complex
array (imaginary parts 0); a float64 conversion would drop the type and
pass it. The answer must hold real floating-point numbers."""
import numpy as np


def attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    A = np.exp(S - S.max(axis=1, keepdims=True))
    A /= A.sum(axis=1, keepdims=True)
    return (A @ V).astype(np.complex128), A

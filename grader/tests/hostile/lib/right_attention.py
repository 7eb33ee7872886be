"""The right attention for the check_*.py kernels (not a test itself: the
corpus is this folder's top level): each changes one thing of its answer."""
import numpy as np


def right_attention(Q, K, V, mask=None):
    """(O, A) of masked scaled dot-product attention (mask True = forbidden)."""
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    A = np.exp(S - S.max(axis=1, keepdims=True))
    A /= A.sum(axis=1, keepdims=True)
    return A @ V, A

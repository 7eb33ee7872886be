# exercise: F3
"""Test fixture: always answers A with one row too many (a malformed answer
from a process that is alive and well: no restart is needed)."""

import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(M, dtype=np.float64) for M in (Q, K, V))
    A = np.full((Q.shape[0] + 1, K.shape[0]), 1.0 / max(K.shape[0], 1))
    return np.zeros((Q.shape[0], V.shape[1])), A

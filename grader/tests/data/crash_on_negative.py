"""Test fixture: crashes when Q[0, 0] < 0, otherwise answers (O, A) = (V[:T_q], uniform)."""
import os

import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    if Q[0, 0] < 0:
        os.abort()
    T_q, T_v = Q.shape[0], K.shape[0]
    A = np.full((T_q, T_v), 1.0 / T_v)
    return A @ V, A

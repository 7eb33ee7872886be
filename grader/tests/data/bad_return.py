"""Test fixture: returns one array instead of the pair (O, A)."""
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    return np.zeros((Q.shape[0], V.shape[1]))

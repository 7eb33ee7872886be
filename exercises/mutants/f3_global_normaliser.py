# mutant: global_normaliser
# exercise: F3
# misconception: the exponentials are divided by one sum over the whole matrix, not by each row's sum.
# violates: F1 (each row of A sums to 1), section 32.2.4
# caught by: row_stochastic
# key: global_normaliser
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    top = S.max(axis=1, keepdims=True)
    if np.isneginf(top).any():
        raise ValueError("a query row has every key forbidden")
    E = np.exp(S - top.max())
    A = E / E.sum()  # BUG: one normaliser for every row
    return A @ V, A

# mutant: wrong_axis
# exercise: F3
# misconception: the softmax normalises each column (over queries) instead of each row (over keys).
# violates: F1 (each row of A sums to 1), section 32.2.2
# caught by: row_stochastic
# key: wrong_axis
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    if np.isneginf(S).all(axis=1).any():
        raise ValueError("a query row has every key forbidden")
    with np.errstate(invalid="ignore"):
        top = S.max(axis=0, keepdims=True)  # BUG: axis 0
        E = np.exp(S - top)
        A = np.nan_to_num(E / E.sum(axis=0, keepdims=True))
    return A @ V, A

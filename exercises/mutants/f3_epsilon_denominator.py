# mutant: epsilon_denominator
# exercise: F3
# misconception: an epsilon is added to the softmax denominator "for safety"; the rows no longer sum to 1.
# violates: F1 and the error bound (reference/TOLERANCE.md); the denominator is >= 1 after the shift
# caught by: oracle_agreement
# key: epsilon_denominator
# key parameter: epsilon (fitted)
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    top = S.max(axis=1, keepdims=True)
    if np.isneginf(top).any():
        raise ValueError("a query row has every key forbidden")
    E = np.exp(S - top)
    A = E / (E.sum(axis=1, keepdims=True) + 1e-12)  # BUG: epsilon in the denominator
    return A @ V, A

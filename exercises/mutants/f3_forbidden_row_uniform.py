# mutant: forbidden_row_uniform
# exercise: F3
# misconception: a query row with every key forbidden falls back to a uniform average of all values.
# violates: Lemma 2's hypothesis and section 32.2.4 (such a row is an error)
# caught by: fully_forbidden_refused
# key: fully_forbidden_answered
# key parameter: answer=uniform
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        empty = mask.all(axis=1, keepdims=True)
        S = np.where(mask & ~empty, -np.inf, S)  # BUG: an empty row attends everywhere
    top = S.max(axis=1, keepdims=True)
    E = np.exp(S - top)
    if mask is not None:
        E = np.where(empty, 1.0, E)
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V, A

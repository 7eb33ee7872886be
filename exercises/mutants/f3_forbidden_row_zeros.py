# mutant: forbidden_row_zeros
# exercise: F3
# misconception: a query row with every key forbidden silently gets zero weights (and a zero output).
# violates: Lemma 2's hypothesis and section 32.2.4 (such a row is an error)
# caught by: fully_forbidden_refused
# key: fully_forbidden_answered
# key parameter: answer=zeros
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    top = S.max(axis=1, keepdims=True)
    top = np.where(np.isneginf(top), 0.0, top)  # BUG: hides the empty row
    E = np.exp(S - top)
    Z = E.sum(axis=1, keepdims=True)
    A = E / np.where(Z == 0, 1.0, Z)
    return A @ V, A

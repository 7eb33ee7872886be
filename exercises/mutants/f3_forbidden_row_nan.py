# mutant: forbidden_row_nan
# exercise: F3
# misconception: a query row with every key forbidden is allowed to come out as NaN.
# violates: Lemma 2's hypothesis and section 32.2.4 (such a row is an error)
# caught by: fully_forbidden_refused
# key: fully_forbidden_answered
# key parameter: answer=NaN
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    with np.errstate(invalid="ignore"):
        top = S.max(axis=1, keepdims=True)  # BUG: no check; -inf - -inf = NaN
        E = np.exp(S - top)
        A = E / E.sum(axis=1, keepdims=True)
    return A @ V, A

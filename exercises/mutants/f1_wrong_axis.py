# mutant: wrong_axis
# exercise: F1
# misconception: the softmax normalises columns instead of rows.
# violates: F1 (each row of A sums to 1), sections 32.2.8-32.2.9
# caught by: row_stochastic
# key: wrong_axis
import numpy as np


def softmax_rows(S):
    if np.isneginf(S).all(axis=1).any():
        raise ValueError("a row has no finite logit")
    with np.errstate(invalid="ignore"):
        E = np.exp(S - S.max(axis=0, keepdims=True))  # BUG: axis 0
        return np.nan_to_num(E / E.sum(axis=0, keepdims=True))

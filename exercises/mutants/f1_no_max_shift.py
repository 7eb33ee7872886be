# mutant: no_max_shift
# exercise: F1
# misconception: the row softmax exponentiates the raw logits; exp overflows for logits beyond about 709.
# violates: shift invariance and the stable softmax, section 32.2.4
# caught by: shift_invariance
# key: no_max_shift
import numpy as np


def softmax_rows(S):
    if np.isneginf(S).all(axis=1).any():
        raise ValueError("a row has no finite logit")
    with np.errstate(over="ignore", invalid="ignore"):
        E = np.exp(S)  # BUG: no max subtraction
        return E / E.sum(axis=1, keepdims=True)

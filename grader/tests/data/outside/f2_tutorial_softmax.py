# The masked softmax as blog posts write it: masked_fill with -inf, then the
# max trick. Nothing checks for a row with every key masked, so such a row
# comes back as NaN (-inf - (-inf)) instead of an error.
# Expected: fully_forbidden_answered (NaN), or no key.
import numpy as np


def softmax(x, axis=-1):
    x_max = np.max(x, axis=axis, keepdims=True)
    e_x = np.exp(x - x_max)
    return e_x / np.sum(e_x, axis=axis, keepdims=True)


def masked_softmax(S, mask):
    S = np.array(S, dtype=np.float64)
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != S.shape:
            raise ValueError("mask and scores differ in shape")
        S[mask] = -np.inf  # masked_fill(mask, -inf)
    return softmax(S, axis=-1)

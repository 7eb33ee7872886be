# mutant: post_softmax_mask
# exercise: F2
# misconception: the softmax is taken over every logit and the forbidden weights are zeroed afterwards, without renormalising.
# violates: Lemma 2 (mask before the softmax), section 32.2.4; exercise F4
# caught by: row_stochastic
# key: post_softmax_mask
import numpy as np


def masked_softmax(S, mask):
    if mask is None:  # no mask: every key allowed (F2's contract)
        mask = np.zeros(S.shape, dtype=bool)
    if mask.all(axis=1).any():
        raise ValueError("a row has every key forbidden")
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return np.where(mask, 0.0, A)  # BUG: zeroed after normalising

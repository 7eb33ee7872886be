# mutant: max_over_forbidden
# exercise: F2
# misconception: the row maximum is taken over every logit, forbidden ones included; a large forbidden logit underflows the allowed ones to 0/0.
# violates: F2 (the maximum must be taken over the allowed entries), section 32.2.4
# caught by: oracle_agreement
# key: max_over_forbidden
import numpy as np


def masked_softmax(S, mask):
    if mask is None:  # no mask: every key allowed (F2's contract)
        mask = np.zeros(S.shape, dtype=bool)
    if mask.all(axis=1).any() or np.isneginf(np.where(mask, -np.inf, S)).all(axis=1).any():
        raise ValueError("a row has every key forbidden")
    top = S.max(axis=1, keepdims=True)  # BUG: includes the forbidden entries
    with np.errstate(invalid="ignore"):
        E = np.where(mask, 0.0, np.exp(S - top))
        return E / E.sum(axis=1, keepdims=True)

"""Model solution of exercise F1 (section 32.2.8) in NumPy: the row-wise
softmax that turns logits S into attention weights A.

Grade it with: attnlab grade solutions/F1/softmax_rows.py

Each row is shifted by its maximum before exp (shift invariance, 32.2.4), so
large logits cannot overflow; a logit of -inf gets weight exp(-inf) = 0.0
exactly (Lemma 2); a row with no finite logit has no softmax and is refused.
"""

import numpy as np


def softmax_rows(S):
    """S: T_q x T_v logits (-inf = forbidden key). Returns A, T_q x T_v:
    A_ij = exp(S_ij) / sum_j' exp(S_ij'), each row non-negative, summing to 1.

    Raises ValueError if S is not a matrix, holds NaN or +inf, or has a row
    whose every logit is -inf (or no column at all).
    """
    S = np.asarray(S, dtype=np.float64)
    if S.ndim != 2:
        raise ValueError("S must be a T_q x T_v matrix, got shape %s" % (S.shape,))
    T_q, T_v = S.shape
    if T_q == 0:
        return np.zeros((0, T_v))
    if T_v == 0:
        raise ValueError("row 0 has no key: S is %d x 0" % T_q)
    bad = np.argwhere(np.isnan(S) | np.isposinf(S))
    if bad.size:
        raise ValueError("S%s is not a logit (NaN or +inf)" % (tuple(bad[0]),))

    row_max = S.max(axis=1, keepdims=True)
    empty = np.flatnonzero(np.isneginf(row_max[:, 0]))
    if empty.size:
        raise ValueError("row %d has every logit -inf: its softmax is undefined" % empty[0])
    E = np.exp(S - row_max)  # every entry in [0, 1], the row's maximum gives exactly 1
    return E / E.sum(axis=1, keepdims=True)

"""Model solution of exercise F2 (section 32.2.8) in NumPy: the masked,
stable softmax.

Grade it with:
    attnlab grade solutions/F2/masked_softmax.py --answers solutions/F2/answers.json

A forbidden key (mask True, or a logit of -inf) gets the logit -inf before
the softmax (Lemma 2). The shift is each row's maximum over its ALLOWED keys:
it is finite whenever the row keeps a key, so no -inf - (-inf) = NaN can
arise, and exp(-inf - m) = 0.0 exactly at the forbidden keys.
"""

import numpy as np


def masked_softmax(S, mask):
    """S: T_q x T_v logits; mask: T_q x T_v booleans (True = forbidden) or None.

    Returns A, T_q x T_v: rows non-negative and summing to 1, exactly 0.0 at
    the forbidden keys. Raises ValueError for a mask of the wrong shape, NaN
    or +inf logits, and a row whose every key is forbidden.
    """
    S = np.asarray(S, dtype=np.float64)
    if S.ndim != 2:
        raise ValueError("S must be a T_q x T_v matrix, got shape %s" % (S.shape,))
    forbidden = np.isneginf(S)
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != S.shape:
            raise ValueError("mask is %s but S is %s" % (mask.shape, S.shape))
        forbidden = forbidden | mask
    bad = np.argwhere(np.isnan(S) | np.isposinf(S))
    if bad.size:
        raise ValueError("S%s is not a logit (NaN or +inf)" % (tuple(bad[0]),))
    empty = np.flatnonzero(forbidden.all(axis=1))
    if empty.size:
        raise ValueError("row %d has every key forbidden: its softmax is undefined" % empty[0])
    if S.shape[0] == 0:
        return np.zeros(S.shape)

    logits = np.where(forbidden, -np.inf, S)
    row_max = logits.max(axis=1, keepdims=True)  # over the allowed keys: finite
    E = np.exp(logits - row_max)
    return E / E.sum(axis=1, keepdims=True)

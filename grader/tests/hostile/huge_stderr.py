# exercise: F3
# expect-exit: 0
"""Hostile: floods stderr (2.9 MB per call, forty times a pipe's buffer and
seven hundred times the tail of stderr the grader keeps) and answers
correctly: the grader must drain it while waiting for the answer."""
import sys

import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    """Q: T_q x d_k, K: T_v x d_k, V: T_v x d_v, mask: T_q x T_v bools or None.

    Returns (O, A): O = A V is T_q x d_v, A (T_q x T_v) holds the weights.
    Raises ValueError for shapes that do not fit, non-finite inputs, and a
    query row whose every key is forbidden.
    """
    sys.stderr.write("\x1b[1A flood " * (2 << 17))
    Q, K, V = (np.asarray(M, dtype=np.float64) for M in (Q, K, V))
    for name, M in (("Q", Q), ("K", K), ("V", V)):
        if M.ndim != 2:
            raise ValueError("%s must be a matrix, got shape %s" % (name, M.shape))
    T_q, d_k = Q.shape
    T_v = K.shape[0]
    if K.shape[1] != d_k:
        raise ValueError("d_k mismatch: Q is %d x %d but K is %d x %d" % (Q.shape + K.shape))
    if V.shape[0] != T_v:
        raise ValueError("K has %d rows but V has %d: both need T_v rows" % (T_v, V.shape[0]))
    if d_k == 0:
        raise ValueError("d_k = 0: the scale 1/sqrt(d_k) is undefined")
    for name, M in (("Q", Q), ("K", K), ("V", V)):
        bad = np.argwhere(~np.isfinite(M))
        if bad.size:
            raise ValueError("%s%s is not finite" % (name, tuple(bad[0])))

    if mask is None:
        forbidden = np.zeros((T_q, T_v), dtype=bool)
    else:
        forbidden = np.asarray(mask, dtype=bool)
        if forbidden.shape != (T_q, T_v):
            raise ValueError("mask is %s, expected T_q x T_v = %s" % (forbidden.shape, (T_q, T_v)))
    if T_q == 0:
        return np.zeros((0, V.shape[1])), np.zeros((0, T_v))

    logits = Q @ K.T / np.sqrt(d_k)
    if not np.isfinite(logits[~forbidden]).all():
        raise ValueError("a logit overflows")
    logits = np.where(forbidden, -np.inf, logits)

    empty_rows = np.flatnonzero(forbidden.all(axis=1))
    if empty_rows.size:
        raise ValueError("query row %d has every key forbidden" % empty_rows[0])
    row_max = logits.max(axis=1, keepdims=True)  # over the allowed keys: -inf never wins
    weights = np.exp(logits - row_max)
    weights /= weights.sum(axis=1, keepdims=True)
    return weights @ V, weights

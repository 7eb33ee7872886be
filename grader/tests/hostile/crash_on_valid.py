# exercise: F3
# expect-exit: 1
# expect-fail: fully_forbidden_refused
# expect-fail: oracle_agreement
"""Hostile: refuses every invalid input as the solution does, and returns
None for every valid one. A crash is no answer: the refusal properties must
not pass on the strength of the refusals alone."""
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(M, dtype=np.float64) for M in (Q, K, V))
    if K.shape[1] != Q.shape[1] or V.shape[0] != K.shape[0] or Q.shape[1] == 0:
        raise ValueError("shapes")
    if not (np.isfinite(Q).all() and np.isfinite(K).all() and np.isfinite(V).all()):
        raise ValueError("not finite")
    if mask is not None:
        m = np.asarray(mask, dtype=bool)
        if m.shape != (Q.shape[0], K.shape[0]):
            raise ValueError("mask shape")
        if m.all(axis=1).any():
            raise ValueError("a row has every key forbidden")
    return None

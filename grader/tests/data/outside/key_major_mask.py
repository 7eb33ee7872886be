# Written in the "column per query" layout of some lecture notes: the score
# matrix is built as keys x queries (K Q^T) and transposed at the end, but
# the mask, which is queries x keys, is applied in the keys x queries layout
# without being transposed. With a square mask the wrong keys are hidden;
# otherwise the layouts do not match and the check below refuses.
# Expected: mask_transposed, or no key.
# exercise: F3
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    if Q.shape[1] != K.shape[1]:
        raise ValueError("d_k of Q (%d) and K (%d) differ" % (Q.shape[1], K.shape[1]))
    if K.shape[0] != V.shape[0]:
        raise ValueError("one value row per key")
    E = K @ Q.T / np.sqrt(K.shape[1])  # E[j, i]: key j, query i
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != E.shape:
            raise ValueError("mask is %s, scores are %s" % (mask.shape, E.shape))
        E = np.where(mask, -np.inf, E)
    E = E.T  # back to queries x keys
    top = E.max(axis=1, keepdims=True)
    if not np.isfinite(top).all():
        raise ValueError("a query has no visible key")
    P = np.exp(E - top)
    P /= P.sum(axis=1, keepdims=True)
    return P @ V, P

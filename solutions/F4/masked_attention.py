"""Model solution of exercise F4 (section 32.2.8) in NumPy: the corrected
masking, with the lab's signature (32.2.7).

Grade it with:
    attnlab grade solutions/F4/masked_attention.py --answers solutions/F4/answers.json

The bug in exercises/F4/post_softmax_mask.py zeroes forbidden weights after
the softmax, whose denominator already counted them. Here the mask (True =
forbidden) turns the forbidden LOGITS into -inf first (Lemma 2); the stable
softmax then subtracts each row's maximum over the allowed keys, so the
forbidden weights are exactly 0 and every row sums to 1.
"""
# exercise: F4

import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    """Q: T_q x d_k, K: T_v x d_k, V: T_v x d_v, mask: T_q x T_v bools or None.

    Returns (O, A): the weights A (T_q x T_v) and the outputs O = A V
    (T_q x d_v). Raises ValueError for shapes that do not fit, non-finite
    inputs, and a query row whose every key is forbidden.
    """
    Q, K, V = (np.asarray(M, dtype=np.float64) for M in (Q, K, V))
    if Q.ndim != 2 or K.ndim != 2 or V.ndim != 2:
        raise ValueError("Q, K and V must be matrices")
    T_q, d_k = Q.shape
    T_v, d_v = V.shape
    if K.shape != (T_v, d_k):
        raise ValueError(
            "K is %s, expected T_v x d_k = %s (Q is %s, V is %s)" % (K.shape, (T_v, d_k), Q.shape, V.shape)
        )
    if d_k == 0:
        raise ValueError("d_k = 0: the scale 1/sqrt(d_k) is undefined")
    for name, M in (("Q", Q), ("K", K), ("V", V)):
        if not np.isfinite(M).all():
            raise ValueError("%s holds NaN or inf" % name)
    forbidden = np.zeros((T_q, T_v), dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    if forbidden.shape != (T_q, T_v):
        raise ValueError("mask is %s, expected T_q x T_v = %s" % (forbidden.shape, (T_q, T_v)))
    empty = np.flatnonzero(forbidden.all(axis=1)) if T_q else []
    if len(empty):
        raise ValueError("query row %d has every key forbidden" % empty[0])
    if T_q == 0:
        return np.zeros((0, d_v)), np.zeros((0, T_v))

    S = Q @ K.T / np.sqrt(d_k)  # Lemma 1
    # The rule for logits (docs/ARCHITECTURE.md): only allowed entries are
    # read; an allowed logit that overflows to +inf (or is NaN) is refused; one
    # that overflows to -inf gets weight 0, unless its whole row does.
    if (np.isnan(S) | (S == np.inf))[~forbidden].any():
        raise ValueError("a logit overflows to +inf")
    S = np.where(forbidden, -np.inf, S)  # THE FIX: mask the logits, before the softmax
    lost = np.flatnonzero(np.isneginf(S).all(axis=1))
    if lost.size:
        raise ValueError("every allowed logit of query row %d overflows to -inf" % lost[0])
    E = np.exp(S - S.max(axis=1, keepdims=True))  # the maximum is over allowed keys
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V, A

# Turns the boolean mask into an additive bias by multiplying it with -inf,
# the way `scores + mask * -1e9` is often "improved" to be exact. In IEEE
# arithmetic False * -inf is 0 * -inf = NaN, so every visible logit is NaN.
# Expected: mask_times_inf, or no key.
# exercise: F3
import math

import numpy as np

NEG_INF = -math.inf


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = np.asarray(Q, np.float64), np.asarray(K, np.float64), np.asarray(V, np.float64)
    if Q.ndim != 2 or Q.shape[1] != K.shape[1]:
        raise ValueError("Q and K must be (T, d_k) with the same d_k")
    if K.shape[0] != V.shape[0]:
        raise ValueError("K and V must have the same number of rows")
    logits = np.matmul(Q, K.T) / math.sqrt(Q.shape[1])
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != logits.shape:
            raise ValueError("mask must be T_q x T_v")
        if np.any(np.all(mask, axis=1)):
            raise ValueError("row %d: every key is masked" % int(np.argmax(np.all(mask, axis=1))))
        with np.errstate(invalid="ignore"):
            logits = logits + mask * NEG_INF  # bias: -inf where masked, 0 elsewhere
    logits = logits - np.max(logits, axis=1, keepdims=True)
    w = np.exp(logits)
    w = w / np.sum(w, axis=1, keepdims=True)
    return np.matmul(w, V), w

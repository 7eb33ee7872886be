# mutant: mask_with_zero
# exercise: F3
# misconception: forbidden logits are set to 0 instead of -inf, so forbidden keys keep some weight.
# violates: Lemma 2 (exact zeros need -inf), section 32.2.4
# caught by: exact_zeros
# key: finite_fill
# key parameter: fill=0

import numpy as np


def _check(Q, K, V):
    Q, K, V = (np.asarray(M, dtype=np.float64) for M in (Q, K, V))
    if K.shape[1] != Q.shape[1]:
        raise ValueError("d_k mismatch")
    if V.shape[0] != K.shape[0]:
        raise ValueError("K and V differ in row count")
    return Q, K, V


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = _check(Q, K, V)
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.all(axis=1).any():
            raise ValueError("a row has every key forbidden")
        S = np.where(mask, 0.0, S)  # BUG: 0, not -inf
    A = np.exp(S - S.max(axis=1, keepdims=True))
    A /= A.sum(axis=1, keepdims=True)
    return A @ V, A

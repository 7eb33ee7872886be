# An F3 attempt written for self-attention only: it refuses every faulty
# input as the text asks (a d_k or T_v mismatch, a mask of the wrong shape,
# a row with every key forbidden), but also any Q with T_q != T_v, which is
# valid (Lemma 1). So each refusal property fails on the valid case its
# faulty input was made from, when that case has T_q != T_v
# (refusal_counterexample_test.sh).
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    if Q.shape[1] != K.shape[1]:
        raise ValueError("Q and K need the same d_k")
    if K.shape[0] != V.shape[0]:
        raise ValueError("K and V need the same T_v")
    if mask is not None and mask.shape != (Q.shape[0], K.shape[0]):
        raise ValueError("the mask must be T_q x T_v")
    if Q.shape[0] != K.shape[0]:  # the mistake: T_q != T_v is valid
        raise ValueError("self-attention needs as many queries as keys")
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    top = S.max(axis=1, keepdims=True)
    if np.isneginf(top).any():
        raise ValueError("a query row has every key forbidden")
    E = np.exp(S - top)
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V, A

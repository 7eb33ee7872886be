# mutant: dk_truncated
# exercise: F3
# misconception: Q and K of different widths are silently cut to the smaller d_k instead of refused.
# violates: Lemma 1 (S = Q K^T needs one d_k), section 32.2.3; F3 solution 32.2.9
# caught by: dk_mismatch_refused
# key: dk_mismatch_accepted
# key parameter: scale=1/sqrt(common width)
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    d = min(Q.shape[1], K.shape[1])  # BUG: hides a shape error
    S = Q[:, :d] @ K[:, :d].T / np.sqrt(d)
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    top = S.max(axis=1, keepdims=True)
    if np.isneginf(top).any():
        raise ValueError("a query row has every key forbidden")
    E = np.exp(S - top)
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V, A

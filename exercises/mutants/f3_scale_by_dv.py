# mutant: scale_by_dv
# exercise: F3
# misconception: the scale uses the value width d_v instead of the key width d_k.
# violates: Lemma 1, section 32.2.3 (the variance of a d_k-term dot product)
# caught by: oracle_agreement
# key: wrong_scale
# key parameter: scale=1/sqrt(d_v)
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(V.shape[1])  # BUG: d_v where d_k belongs
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    top = S.max(axis=1, keepdims=True)
    if np.isneginf(top).any():
        raise ValueError("a query row has every key forbidden")
    E = np.exp(S - top)
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V, A

# mutant: scale_twice
# exercise: F3
# misconception: Q is pre-scaled by 1/sqrt(d_k) and the logits are scaled again.
# violates: Lemma 1, section 32.2.3
# caught by: oracle_agreement
# key: wrong_scale
# key parameter: scale=1/d_k (scaled twice)
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    root = np.sqrt(Q.shape[1])
    S = (Q / root) @ K.T / root  # BUG: the scale is applied twice
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    top = S.max(axis=1, keepdims=True)
    if np.isneginf(top).any():
        raise ValueError("a query row has every key forbidden")
    E = np.exp(S - top)
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V, A

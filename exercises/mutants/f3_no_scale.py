# mutant: no_scale
# exercise: F3
# misconception: the logits are Q K^T without the 1/sqrt(d_k) scale.
# violates: Lemma 1 and the definition, sections 32.2.2-32.2.3
# caught by: oracle_agreement
# key: wrong_scale
# key parameter: scale=none
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    S = Q @ K.T  # BUG: the scale 1/sqrt(d_k) is missing
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    top = S.max(axis=1, keepdims=True)
    if np.isneginf(top).any():
        raise ValueError("a query row has every key forbidden")
    E = np.exp(S - top)
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V, A

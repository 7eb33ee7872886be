# mutant: divide_by_dk
# exercise: F3
# misconception: the logits are divided by d_k instead of sqrt(d_k).
# violates: Lemma 1 and the variance argument, section 32.2.3
# caught by: oracle_agreement
# key: wrong_scale
# key parameter: scale=1/d_k
# key note: same computation as scale_twice
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    S = Q @ K.T / Q.shape[1]  # BUG: d_k, not sqrt(d_k)
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    top = S.max(axis=1, keepdims=True)
    if np.isneginf(top).any():
        raise ValueError("a query row has every key forbidden")
    E = np.exp(S - top)
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V, A

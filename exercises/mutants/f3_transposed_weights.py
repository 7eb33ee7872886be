# mutant: transposed_weights
# exercise: F3
# misconception: the weights are returned as T_v x T_q (keys by queries).
# violates: Lemma 1 (A is T_q x T_v), section 32.2.3
# caught by: score_shape
# key: transposed_output
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    top = S.max(axis=1, keepdims=True)
    if np.isneginf(top).any():
        raise ValueError("a query row has every key forbidden")
    E = np.exp(S - top)
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V, A.T  # BUG: transposed

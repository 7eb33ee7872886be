# mutant: causal_assumed
# exercise: F3
# misconception: every mask is assumed to be the causal one (j <= i), whatever mask is passed.
# violates: Lemma 2 for padding and arbitrary masks, section 32.2.4
# caught by: exact_zeros
# key: causal_assumed
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        t_q, t_v = S.shape
        causal = np.arange(t_v)[None, :] > np.arange(t_q)[:, None]
        S = np.where(causal, -np.inf, S)  # BUG: the given mask is ignored
    top = S.max(axis=1, keepdims=True)
    if np.isneginf(top).any():
        raise ValueError("a query row has every key forbidden")
    E = np.exp(S - top)
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V, A

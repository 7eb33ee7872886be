# mutant: wrong_catcher
# exercise: F3
# misconception: the logits are not scaled, but the header names a property that cannot see that: `attnlab mutants` must say the declared catcher did not catch it (a test fixture).
# violates: Lemma 1, section 32.2.3
# caught by: row_stochastic
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

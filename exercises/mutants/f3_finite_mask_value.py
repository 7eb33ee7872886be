# mutant: finite_mask_value
# exercise: F3
# misconception: forbidden logits get a large negative number (-1e4) instead of -inf, so their weight is not exactly 0.
# violates: Lemma 2 (exact zeros need -inf), section 32.2.4
# caught by: exact_zeros
# key: finite_fill
# key parameter: fill=-1e4
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        if mask.all(axis=1).any():
            raise ValueError("a query row has every key forbidden")
        S = np.where(mask, -1e4, S)  # BUG: a finite stand-in for -inf
    top = S.max(axis=1, keepdims=True)
    E = np.exp(S - top)
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V, A

# mutant: no_max_shift
# exercise: F3
# misconception: the softmax exponentiates the raw logits; large logits overflow to inf/inf = NaN.
# violates: shift invariance and the stable softmax, section 32.2.4
# caught by: oracle_agreement
# key: no_max_shift
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    if np.isneginf(S).all(axis=1).any():
        raise ValueError("a query row has every key forbidden")
    with np.errstate(over="ignore", invalid="ignore"):
        E = np.exp(S)  # BUG: no max subtraction
        A = E / E.sum(axis=1, keepdims=True)
    return A @ V, A

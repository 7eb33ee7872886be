# mutant: float32_accumulation
# exercise: F3
# misconception: the work is done in float32 while the function claims float64 results.
# violates: the error bound for double precision (reference/TOLERANCE.md)
# caught by: oracle_agreement
# key: low_precision
# key parameter: precision=float32
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = (M.astype(np.float32) for M in (Q, K, V))  # BUG: single precision inside
    S = Q @ K.T / np.float32(np.sqrt(Q.shape[1]))
    if mask is not None:
        S = np.where(mask, np.float32(-np.inf), S)
    top = S.max(axis=1, keepdims=True)
    if np.isneginf(top).any():
        raise ValueError("a query row has every key forbidden")
    E = np.exp(S - top)
    A = E / E.sum(axis=1, keepdims=True)
    return (A @ V).astype(np.float64), A.astype(np.float64)

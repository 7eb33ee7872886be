"""Written for the tests: attention with two mistakes at once, in different
steps: no 1/sqrt(d_k) (Lemma 1) and every step in float32 while the file
declares nothing (float64). The diagnosis must name both (combined), not
low_precision(bfloat16) alone, whose wide tolerance hides the scale."""
import numpy as np

def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(M, dtype=np.float32) for M in (Q, K, V))
    if Q.shape[1] != K.shape[1]:
        raise ValueError("d_k mismatch")
    if not (np.isfinite(Q).all() and np.isfinite(K).all() and np.isfinite(V).all()):
        raise ValueError("not finite")
    S = Q @ K.T
    if mask is not None:
        if np.asarray(mask).all(axis=1).any():
            raise ValueError("a query row with every key forbidden")
        S = np.where(mask, -np.inf, S)
    S = S - S.max(axis=1, keepdims=True)
    A = np.exp(S)
    A = A / A.sum(axis=1, keepdims=True)
    return (A @ V).astype(np.float64), A.astype(np.float64)

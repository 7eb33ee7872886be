# mutant: dv_float16_accumulation
# op: attention_backward
# precision: float32
# misconception: dV = P^T dO is accumulated over the query rows in a float16 buffer (to save memory) while the kernel declares float32.
# violates: the declared precision: reference/TOLERANCE.md, "The backward pass", bounds dV by float32's unit roundoff 2^-24 times the sum's length; float16's is 2^-11
# caught by: backward_oracle_agreement
# why (decided before running): every product and partial sum of dV is rounded to 11 bits, an error near 2^-11 |P^T||dO| per entry, about 8000 times float32's per-term rounding and far above the float32 bound even after its factor of T_q.
# key: backward_low_precision_accumulation
# key parameter: dV=float16
import numpy as np


def attention_backward(Q, K, V, dO, mask=None, scale=None, causal=False):
    """The gradients (dQ, dK, dV) of sum(dO * O), O = softmax(c Q K^T) V (Dao et al. 2022, Appendix B.2)."""
    Q, K, V, dO = (np.asarray(M, dtype=np.float32) for M in (Q, K, V, dO))
    c = np.float32(1.0 / np.sqrt(Q.shape[1]) if scale is None else scale)
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.all(axis=1).any():
            raise ValueError("a query row has every key forbidden")
    S = c * (Q @ K.T)
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    P = E / E.sum(axis=1, keepdims=True)
    O = P @ V
    dV16 = np.zeros((P.shape[1], dO.shape[1]), dtype=np.float16)
    for i in range(P.shape[0]):  # BUG: the running sum of dV is float16
        dV16 = dV16 + np.outer(P[i], dO[i]).astype(np.float16)
    dV = dV16.astype(np.float32)
    dP = dO @ V.T
    D = (dO * O).sum(axis=1, keepdims=True)
    dS = P * (dP - D)
    return c * (dS @ K), c * (dS.T @ Q), dV

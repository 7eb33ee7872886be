# mutant: dq_no_scale
# op: attention_backward
# precision: float64
# misconception: the chain rule through S = c Q K^T reaches dK but not dQ: dQ = dS K without the factor c = 1/sqrt(d_k).
# violates: the definition S = Q K^T / sqrt(d_k) (section 32.2.2), differentiated: dQ = c dS K
# caught by: backward_oracle_agreement
# why (decided before running): dQ is sqrt(d_k) times its value, each entry off by (sqrt(d_k) - 1) |dQ_il|, thousands of bounds of float64 rounding once d_k > 1; dK and dV are right, so no invariant of dK sees it.
# key: backward_scale_missing
# key parameter: gradient=dQ
import numpy as np


def attention_backward(Q, K, V, dO, mask=None, scale=None, causal=False):
    """The gradients (dQ, dK, dV) of sum(dO * O), O = softmax(c Q K^T) V (Dao et al. 2022, Appendix B.2)."""
    Q, K, V, dO = (np.asarray(M, dtype=np.float64) for M in (Q, K, V, dO))
    c = 1.0 / np.sqrt(Q.shape[1]) if scale is None else scale
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
    dV = P.T @ dO
    dP = dO @ V.T
    D = (dO * O).sum(axis=1, keepdims=True)
    dS = P * (dP - D)
    return dS @ K, c * (dS.T @ Q), dV  # BUG: dQ lacks the factor c

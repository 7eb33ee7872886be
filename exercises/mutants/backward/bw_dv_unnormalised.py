# mutant: dv_unnormalised
# op: attention_backward
# precision: float64
# misconception: dV is accumulated from the exponentials E = exp(S - max) before the division by their row sum, as a tiled forward accumulates its output and divides at the end (the division is forgotten here).
# violates: O = P V with P = softmax(S) row by row (section 32.2.3), so dV = P^T dO
# caught by: backward_oracle_agreement
# why (decided before running): each query row's part of dV is multiplied by its row sum l_i >= 1 (1 only when one key dominates or is the only one allowed), so dV is off by a factor of the order of T_v; dQ and dK are right.
# key: backward_dv_unnormalised
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
    dV = E.T @ dO  # BUG: E, not P = E / rowsum(E)
    dP = dO @ V.T
    D = (dO * O).sum(axis=1, keepdims=True)
    dS = P * (dP - D)
    return c * (dS @ K), c * (dS.T @ Q), dV

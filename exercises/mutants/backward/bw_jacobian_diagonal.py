# mutant: jacobian_diagonal
# op: attention_backward
# precision: float64
# misconception: the softmax is differentiated entry by entry like a sigmoid, dS_ij = P_ij (1 - P_ij) dP_ij, as if each weight depended on its own logit alone.
# violates: the softmax's Jacobian diag(p) - p p^T (Dao et al. 2022, Appendix B.2)
# caught by: backward_ds_rows_sum_to_zero
# why (decided before running): the terms -P_ij P_ik dP_ik (k != j) are dropped, so row i of dS sums to sum_j P_ij dP_ij - sum_j P_ij^2 dP_ij, not 0.
# key: backward_jacobian_diagonal
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
    dS = P * (1.0 - P) * dP  # BUG: the diagonal of diag(p) - p p^T alone
    return c * (dS @ K), c * (dS.T @ Q), dV

# mutant: d_from_dp
# op: attention_backward
# precision: float64
# misconception: D_i is taken as the plain row sum of dP instead of rowsum(dO o O) = sum_j P_ij dP_ij.
# violates: the softmax's gradient, D_i = sum_j P_ij dP_ij (Dao et al. 2022, Appendix B.2)
# caught by: backward_ds_rows_sum_to_zero
# why (decided before running): row i of dS sums to D_i - rowsum(dP)_i, not 0 (the weights sum to 1, dP's row does not), so the keys' gradients do not sum to the zero vector.
# key: backward_d_unweighted
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
    D = dP.sum(axis=1, keepdims=True)  # BUG: rowsum(dP), not rowsum(P * dP) = rowsum(dO * O)
    dS = P * (dP - D)
    return c * (dS @ K), c * (dS.T @ Q), dV

# mutant: d_wrong_axis
# op: attention_backward
# precision: float64
# misconception: D is summed over the queries (axis 0, one value per key) instead of over the keys of each query row; the (1, T_v) result broadcasts without an error.
# violates: the softmax's gradient row by row, D_i = sum_j P_ij dP_ij (Dao et al. 2022, Appendix B.2)
# caught by: backward_ds_rows_sum_to_zero
# why (decided before running): a different number is subtracted in each column, so sum_j dS_ij = D_i - sum_j P_ij D'_j is not 0 and the keys' gradients do not sum to the zero vector.
# key: backward_d_wrong_axis
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
    D = (P * dP).sum(axis=0, keepdims=True)  # BUG: over the queries, not over each row's keys
    dS = P * (dP - D)
    return c * (dS @ K), c * (dS.T @ Q), dV

# mutant: d_term_dropped
# op: attention_backward
# precision: float64
# misconception: the softmax's Jacobian loses its rank-one part: dS = P o dP, without subtracting D_i = rowsum(dO o O).
# violates: the softmax's gradient, dS_ij = P_ij (dP_ij - D_i) (Dao et al. 2022, Appendix B.2); shift invariance, section 32.2.4, differentiated
# caught by: backward_ds_rows_sum_to_zero
# why (decided before running): row i of dS then sums to D_i instead of 0, so the keys' gradients sum to c sum_i D_i Q_i, far from the zero vector unless every dO_i is orthogonal to O_i.
# key: backward_d_term_dropped
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
    dS = P * dP  # BUG: - D_i is missing
    return c * (dS @ K), c * (dS.T @ Q), dV

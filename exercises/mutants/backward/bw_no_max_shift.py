# mutant: no_max_shift
# op: attention_backward
# precision: float64
# misconception: the weights are recomputed as exp(S) / rowsum(exp(S)) without subtracting the row's maximum.
# violates: shift invariance (section 32.2.4), which makes the shift free and is what keeps exp finite
# caught by: backward_oracle_agreement
# why (decided before running): a logit above log(DBL_MAX) ~ 709.8 overflows exp to inf and the row's weights to inf / inf = NaN, so every gradient touched by the row is NaN (an infinite ratio); the generator's long rows with large entries reach such logits.
# key: backward_no_max_shift
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
    E = np.exp(S)  # BUG: no max shift
    P = E / E.sum(axis=1, keepdims=True)
    O = P @ V
    dV = P.T @ dO
    dP = dO @ V.T
    D = (dO * O).sum(axis=1, keepdims=True)
    dS = P * (dP - D)
    return c * (dS @ K), c * (dS.T @ Q), dV

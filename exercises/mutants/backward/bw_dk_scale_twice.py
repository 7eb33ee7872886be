# mutant: dk_scale_twice
# op: attention_backward
# precision: float64
# misconception: the scale is applied to dS ("the gradient of the scaled logits") and again in dK = c dS^T Q, so dK carries c^2 = 1/d_k.
# violates: the definition S = Q K^T / sqrt(d_k) (section 32.2.2), differentiated: dK = c dS^T Q
# caught by: backward_oracle_agreement
# why (decided before running): dK is 1/sqrt(d_k) of its value; its rows still sum to 0 (a common factor) and dQ, dV are right, so only the oracle sees it, by (1 - c) |dK_jl| per entry once d_k > 1.
# key: backward_scale_twice
# key parameter: gradient=dK
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
    return c * (dS @ K), c * c * (dS.T @ Q), dV  # BUG: c twice in dK

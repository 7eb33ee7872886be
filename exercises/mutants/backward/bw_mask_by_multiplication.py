# mutant: mask_by_multiplication
# op: attention_backward
# precision: float64
# misconception: the mask is applied by multiplying the logits by the allowed indicator (S o (1 - mask)), so a forbidden logit is 0, not -inf.
# violates: masking before the softmax with -inf (section 32.2.5, Lemma 2): a forbidden key has weight exactly 0
# caught by: backward_exact_zeros
# why (decided before running): a forbidden key gets weight exp(0 - m_i) / l_i > 0, so a key forbidden to every query gets nonzero rows of dV = P^T dO and dK, where exactly 0 is required.
# key: backward_mask_by_multiplication
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
        S = S * ~mask  # BUG: forbidden logits become 0, not -inf
    E = np.exp(S - S.max(axis=1, keepdims=True))
    P = E / E.sum(axis=1, keepdims=True)
    O = P @ V
    dV = P.T @ dO
    dP = dO @ V.T
    D = (dO * O).sum(axis=1, keepdims=True)
    dS = P * (dP - D)
    return c * (dS @ K), c * (dS.T @ Q), dV

# mutant: finite_fill
# op: attention_backward
# precision: float64
# misconception: forbidden logits are filled with a finite stand-in for -inf, -1e4 (as masked_fill with a "very negative" number does), in the backward's recomputation of P as in the forward.
# violates: masking before the softmax with -inf (section 32.2.5, Lemma 2): a forbidden key has weight exactly 0, whatever the allowed logits are
# caught by: backward_exact_zeros
# why (decided before running): when the allowed logits are far below -1e4 (the generator's hugely negative regime, logits near -1e9) the forbidden keys carry all the weight, so a key forbidden to every query gets nonzero rows of dV and dK, where exactly 0 is required; on ordinary logits exp(-1e4 - m_i) underflows to 0 and nothing shows.
# key: backward_finite_mask_value
# key parameter: fill=-1e4
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
        S = np.where(mask, -1e4, S)  # BUG: a finite stand-in for -inf
    E = np.exp(S - S.max(axis=1, keepdims=True))
    P = E / E.sum(axis=1, keepdims=True)
    O = P @ V
    dV = P.T @ dO
    dP = dO @ V.T
    D = (dO * O).sum(axis=1, keepdims=True)
    dS = P * (dP - D)
    return c * (dS @ K), c * (dS.T @ Q), dV

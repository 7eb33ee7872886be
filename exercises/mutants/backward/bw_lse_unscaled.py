# mutant: lse_unscaled
# op: attention_backward
# precision: float64
# misconception: the forward saves the logsumexp of the unscaled logits Q K^T (its output O is right), and the backward recomputes P = exp(c Q K^T - L) from it.
# violates: the recomputed weights must be the forward's (FlashAttention-2, Algorithm 2): L_i = log sum_j exp(c Q_i . K_j)
# caught by: backward_oracle_agreement
# why (decided before running): the recomputed rows sum to exp(lse(c s) - lse(s)) != 1 (unless d_k = 1), so dV = P^T dO and dS are scaled row by row, far outside float64's bound.
# key: backward_lse_unscaled
import numpy as np


def attention_forward(Q, K, V, mask, c):
    """O and the logsumexp L_i = log sum_j exp(S_ij) of the logits S = c Q K^T, saved for the backward."""
    S = c * (Q @ K.T)
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    m = S.max(axis=1, keepdims=True)
    l = np.exp(S - m).sum(axis=1, keepdims=True)
    O = np.exp(S - m - np.log(l)) @ V
    S0 = S / c  # BUG: the logsumexp is taken of the unscaled logits Q K^T
    m0 = S0.max(axis=1, keepdims=True)
    return O, m0 + np.log(np.exp(S0 - m0).sum(axis=1, keepdims=True))


def attention_backward(Q, K, V, dO, mask=None, scale=None, causal=False):
    """The gradients (dQ, dK, dV) of sum(dO * O), recomputing P from the saved logsumexp (FlashAttention-2, Algorithm 2)."""
    Q, K, V, dO = (np.asarray(M, dtype=np.float64) for M in (Q, K, V, dO))
    c = 1.0 / np.sqrt(Q.shape[1]) if scale is None else scale
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.all(axis=1).any():
            raise ValueError("a query row has every key forbidden")
    O, L = attention_forward(Q, K, V, mask, c)
    S = c * (Q @ K.T)
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    P = np.exp(S - L)  # the weights, recomputed
    dV = P.T @ dO
    dP = dO @ V.T
    D = (dO * O).sum(axis=1, keepdims=True)
    dS = P * (dP - D)
    return c * (dS @ K), c * (dS.T @ Q), dV

# mutant: mask_not_in_recompute
# op: attention_backward
# precision: float64
# misconception: the forward masks its logits, but the backward, recomputing P = exp(S - L) from Q, K and the saved logsumexp, forgets the mask.
# violates: the recomputed weights must be the forward's (FlashAttention-2, Algorithm 2, lines 11-13): a forbidden key has weight exactly 0 (section 32.2.5, Lemma 2)
# caught by: backward_exact_zeros
# why (decided before running): a forbidden key gets weight exp(S_ij - L_i) > 0, so a key forbidden to every query gets nonzero rows of dV and dK, where exactly 0 is required.
# key: backward_mask_not_in_recompute
import numpy as np


def attention_forward(Q, K, V, mask, c):
    """O and the logsumexp L_i = log sum_j exp(S_ij) of the logits S = c Q K^T, saved for the backward."""
    S = c * (Q @ K.T)
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    m = S.max(axis=1, keepdims=True)
    l = np.exp(S - m).sum(axis=1, keepdims=True)
    L = m + np.log(l)
    return np.exp(S - L) @ V, L


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
        pass  # BUG: the mask is not applied to the recomputed logits
    P = np.exp(S - L)  # the weights, recomputed
    dV = P.T @ dO
    dP = dO @ V.T
    D = (dO * O).sum(axis=1, keepdims=True)
    dS = P * (dP - D)
    return c * (dS @ K), c * (dS.T @ Q), dV

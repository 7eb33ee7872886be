# correct: the backward pass of softmax attention from its definition
# op: attention_backward
# entries: backward_float64:float64 backward_float32:float32 backward_recompute:float64
# source: Dao et al. 2022, FlashAttention, Appendix B.2 (the gradients of softmax attention)
"""The backward pass written from the definition, the reference the mutants
of this folder depart from, each in one place: O = P V with
P = softmax(c Q K^T) row by row over the allowed keys (c = 1/sqrt(d_k)),
and for the loss sum(dO * O):

    dV = P^T dO,  dP = dO V^T,  D_i = rowsum(dO * O)_i = rowsum(P * dP)_i,
    dS = P * (dP - D),  dQ = c dS K,  dK = c dS^T Q.

`backward_float64` computes in float64, `backward_float32` in float32
throughout (checked with --precision float32). A fully forbidden row is
refused, as the library's convention asks. `backward_recompute` recomputes
P from Q, K and the logsumexp saved by the forward (FlashAttention-2,
Algorithm 2), the form the mutants bw_lse_unscaled and
bw_mask_not_in_recompute depart from."""
import numpy as np


def _backward(Q, K, V, dO, mask, scale, dtype):
    Q, K, V, dO = (np.asarray(M, dtype=dtype) for M in (Q, K, V, dO))
    c = dtype(1.0 / np.sqrt(Q.shape[1]) if scale is None else scale)
    S = c * (Q @ K.T)
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.all(axis=1).any():
            raise ValueError("a query row has every key forbidden")
        S = np.where(mask, dtype(-np.inf), S)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    P = E / E.sum(axis=1, keepdims=True)
    O = P @ V
    dV = P.T @ dO
    dP = dO @ V.T
    D = (dO * O).sum(axis=1, keepdims=True)
    dS = P * (dP - D)
    return c * (dS @ K), c * (dS.T @ Q), dV


def backward_float64(Q, K, V, dO, mask=None, scale=None, causal=False):
    return _backward(Q, K, V, dO, mask, scale, np.float64)


def backward_float32(Q, K, V, dO, mask=None, scale=None, causal=False):
    return _backward(Q, K, V, dO, mask, scale, np.float32)


def _forward(Q, K, V, mask, c):
    """O and the logsumexp L_i = log sum_j exp(S_ij) of S = c Q K^T."""
    S = c * (Q @ K.T)
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    m = S.max(axis=1, keepdims=True)
    L = m + np.log(np.exp(S - m).sum(axis=1, keepdims=True))
    return np.exp(S - L) @ V, L


def backward_recompute(Q, K, V, dO, mask=None, scale=None, causal=False):
    Q, K, V, dO = (np.asarray(M, dtype=np.float64) for M in (Q, K, V, dO))
    c = 1.0 / np.sqrt(Q.shape[1]) if scale is None else scale
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.all(axis=1).any():
            raise ValueError("a query row has every key forbidden")
    O, L = _forward(Q, K, V, mask, c)
    S = c * (Q @ K.T)
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    P = np.exp(S - L)
    dP = dO @ V.T
    dS = P * (dP - (dO * O).sum(axis=1, keepdims=True))
    return c * (dS @ K), c * (dS.T @ Q), P.T @ dO

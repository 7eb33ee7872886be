# FlashAttention's forward pass the way a "FlashAttention from scratch in
# NumPy" blog post writes it: query blocks of Br rows, key/value blocks of Bc
# rows, a running row maximum m and denominator l, the output accumulated
# unnormalised and divided by l at the end. The one slip: when a new block
# raises m, the l and O accumulated so far are not multiplied by
# exp(m_old - m_new).
# Expected: tiled_no_rescale, or no key.
# exercise: T1
import math

import numpy as np


def _as_inputs(Q, K, V, mask):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    if Q.shape[1] != K.shape[1]:
        raise ValueError("Q and K must have the same head dim, got %d and %d" % (Q.shape[1], K.shape[1]))
    if K.shape[0] != V.shape[0]:
        raise ValueError("K and V must have the same sequence length")
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.all(axis=1).any():
            raise ValueError("some query has no key to attend to")
    return Q, K, V, mask


def attention(Q, K, V, mask=None):
    """Standard attention, materialising the whole N x N score matrix."""
    Q, K, V, mask = _as_inputs(Q, K, V, mask)
    S = Q @ K.T / math.sqrt(Q.shape[1])
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    S = S - S.max(axis=1, keepdims=True)
    P = np.exp(S)
    P = P / P.sum(axis=1, keepdims=True)
    return P @ V, P


def attention_tiled(Q, K, V, mask, tile_q, tile_k):
    """Tiled forward pass; returns the output and the row logsumexp L
    (what the backward pass would keep)."""
    Q, K, V, mask = _as_inputs(Q, K, V, mask)
    N, d = Q.shape
    M = K.shape[0]
    Br, Bc = tile_q, tile_k
    softmax_scale = 1.0 / math.sqrt(d)

    O = np.zeros((N, V.shape[1]))
    L = np.zeros(N)
    for i in range(0, N, Br):
        Qi = Q[i:i + Br]
        Oi = np.zeros((Qi.shape[0], V.shape[1]))
        li = np.zeros(Qi.shape[0])
        mi = np.full(Qi.shape[0], -np.inf)
        for j in range(0, M, Bc):
            Kj, Vj = K[j:j + Bc], V[j:j + Bc]
            Sij = (Qi @ Kj.T) * softmax_scale
            if mask is not None:
                Sij = np.where(mask[i:i + Br, j:j + Bc], -np.inf, Sij)
            m_new = np.maximum(mi, Sij.max(axis=1))
            # rows with nothing allowed so far: subtract 0 so exp(-inf) = 0
            m_safe = np.where(np.isneginf(m_new), 0.0, m_new)
            Pij = np.exp(Sij - m_safe[:, None])
            li = li + Pij.sum(axis=1)
            Oi = Oi + Pij @ Vj
            mi = m_new
        O[i:i + Br] = Oi / li[:, None]
        L[i:i + Br] = mi + np.log(li)
    return O, L

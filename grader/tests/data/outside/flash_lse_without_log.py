# A FlashAttention forward pass in NumPy whose output O is right (running
# maximum, rescale by exp(m_old - m_new), fully masked blocks skipped), but
# whose saved statistic for the backward pass is written L = m + l instead of
# L = m + log(l): the logsumexp is off by l - log(l) >= 1. No mistake in the
# catalogue is this one; it must not be mistaken for low precision (O is
# exact to float64).
# Expected: no key.
# exercise: T1
import numpy as np


def attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    if Q.shape[1] != K.shape[1] or K.shape[0] != V.shape[0]:
        raise ValueError("shape mismatch")
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.all(axis=1).any():
            raise ValueError("fully masked row")
        S = np.where(mask, -np.inf, S)
    P = np.exp(S - S.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    return P @ V, P


def attention_tiled(Q, K, V, mask, tile_q, tile_k):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    if Q.shape[1] != K.shape[1] or K.shape[0] != V.shape[0]:
        raise ValueError("shape mismatch")
    T_q, T_v = Q.shape[0], K.shape[0]
    mask = np.zeros((T_q, T_v), bool) if mask is None else np.asarray(mask, dtype=bool)
    if mask.all(axis=1).any():
        raise ValueError("fully masked row")
    scale = 1.0 / np.sqrt(Q.shape[1])
    O = np.empty((T_q, V.shape[1]))
    L = np.empty(T_q)
    for q0 in range(0, T_q, tile_q):
        rows = slice(q0, q0 + tile_q)
        n = Q[rows].shape[0]
        m = np.full(n, -np.inf)
        l = np.zeros(n)
        acc = np.zeros((n, V.shape[1]))
        for k0 in range(0, T_v, tile_k):
            cols = slice(k0, k0 + tile_k)
            s = np.where(mask[rows, cols], -np.inf, Q[rows] @ K[cols].T * scale)
            m_new = np.maximum(m, s.max(axis=1))
            live = np.isfinite(m_new)
            alpha = np.where(live & np.isfinite(m), np.exp(np.where(live, m - m_new, 0.0)), 0.0)
            p = np.exp(s - np.where(live, m_new, 0.0)[:, None])
            l = alpha * l + p.sum(axis=1)
            acc = alpha[:, None] * acc + p @ V[cols]
            m = m_new
        O[rows] = acc / l[:, None]
        L[rows] = m + l
    return O, L

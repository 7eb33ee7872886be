# A homework-style FlashAttention in NumPy: each query row is independent, so
# the outer loop simply runs over the rows (any query tiling gives the same
# result), and the inner loop walks the keys in Tc blocks of size Bc with
# the usual online-softmax update. The block count is written Tc = N // Bc,
# as if Bc always divided the number of keys.
# Expected: tiled_last_tile_dropped, or no key.
# exercise: T1
import numpy as np


def _prepare(Q, K, V, mask):
    Q = np.array(Q, dtype=np.float64)
    K = np.array(K, dtype=np.float64)
    V = np.array(V, dtype=np.float64)
    if Q.shape[1] != K.shape[1] or K.shape[0] != V.shape[0]:
        raise ValueError("incompatible shapes %s %s %s" % (Q.shape, K.shape, V.shape))
    if mask is None:
        mask = np.zeros((Q.shape[0], K.shape[0]), dtype=bool)
    mask = np.asarray(mask, dtype=bool)
    if np.any(np.all(mask, axis=1)):
        raise ValueError("fully masked query row")
    return Q, K, V, mask


def attention(Q, K, V, mask=None):
    Q, K, V, mask = _prepare(Q, K, V, mask)
    S = np.where(mask, -np.inf, Q @ K.T / np.sqrt(Q.shape[1]))
    W = np.exp(S - np.max(S, axis=1, keepdims=True))
    W = W / np.sum(W, axis=1, keepdims=True)
    return W @ V, W


def attention_tiled(Q, K, V, mask, tile_q, tile_k):
    Q, K, V, mask = _prepare(Q, K, V, mask)
    N, d = K.shape
    Bc = tile_k
    Tc = N // Bc                      # number of key/value blocks
    tau = 1.0 / np.sqrt(d)
    out = np.zeros((Q.shape[0], V.shape[1]))
    lse = np.zeros(Q.shape[0])
    for i, q in enumerate(Q):
        m, l = -np.inf, 0.0
        acc = np.zeros(V.shape[1])
        for b in range(Tc):
            blk = slice(b * Bc, (b + 1) * Bc)
            s = (K[blk] @ q) * tau
            s[mask[i, blk]] = -np.inf
            m_blk = s.max()
            if m_blk == -np.inf:      # nothing visible in this block
                continue
            m_new = max(m, m_blk)
            corr = np.exp(m - m_new)
            p = np.exp(s - m_new)
            l = corr * l + p.sum()
            acc = corr * acc + p @ V[blk]
            m = m_new
        out[i] = acc / l
        lse[i] = m + np.log(l)
    return out, lse

# mutant: forbidden_tile_nan
# exercise: T1
# misconception: each tile's weights are exp(S - tile maximum) as in FlashAttention's Algorithm 1, unguarded: a key tile with no allowed key for a row gives exp(-inf - (-inf)) = NaN, which poisons the row.
# violates: Lemma 2 (forbidden keys contribute exactly 0), section 32.2.4; FlashAttention, Theorem 1
# caught by: oracle_agreement
# key: tiled_forbidden_tile_nan
# key parameter: maximum=each tile's own
import numpy as np


def _check(Q, K, V, mask):
    Q, K, V = (np.asarray(M, dtype=np.float64) for M in (Q, K, V))
    for name, M in (("Q", Q), ("K", K), ("V", V)):
        if M.ndim != 2:
            raise ValueError("%s must be a matrix, got shape %s" % (name, M.shape))
    T_q, d_k = Q.shape
    T_v = K.shape[0]
    if K.shape[1] != d_k:
        raise ValueError("d_k mismatch: Q is %d x %d but K is %d x %d" % (Q.shape + K.shape))
    if V.shape[0] != T_v:
        raise ValueError("K has %d rows but V has %d: both need T_v rows" % (T_v, V.shape[0]))
    if d_k == 0:
        raise ValueError("d_k = 0: the scale 1/sqrt(d_k) is undefined")
    for name, M in (("Q", Q), ("K", K), ("V", V)):
        bad = np.argwhere(~np.isfinite(M))
        if bad.size:
            raise ValueError("%s%s is not finite" % (name, tuple(bad[0])))
    if mask is None:
        forbidden = np.zeros((T_q, T_v), dtype=bool)
    else:
        forbidden = np.asarray(mask, dtype=bool)
        if forbidden.shape != (T_q, T_v):
            raise ValueError("mask is %s, expected T_q x T_v = %s" % (forbidden.shape, (T_q, T_v)))
    return Q, K, V, forbidden


def attention(Q, K, V, mask=None):
    """The naive form (F3's solution): returns (O, A)."""
    Q, K, V, forbidden = _check(Q, K, V, mask)
    T_q, T_v = forbidden.shape
    if T_q == 0:
        return np.zeros((0, V.shape[1])), np.zeros((0, T_v))
    logits = Q @ K.T / np.sqrt(Q.shape[1])
    if not np.isfinite(logits[~forbidden]).all():
        raise ValueError("a logit overflows")
    logits = np.where(forbidden, -np.inf, logits)
    empty_rows = np.flatnonzero(forbidden.all(axis=1))
    if empty_rows.size:
        raise ValueError("query row %d has every key forbidden" % empty_rows[0])
    weights = np.exp(logits - logits.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    return weights @ V, weights


def attention_tiled(Q, K, V, mask, tile_q, tile_k):
    """Tiled attention (FlashAttention's Algorithm 1, section 32.2.4 cost):
    returns (O, logsumexp), O = attention(Q, K, V, mask).O and
    logsumexp_i = log sum over allowed j of exp(S_ij), S = Q K^T / sqrt(d_k).

    Per query row i: a running maximum m_i of the allowed logits seen so far
    (-inf at first), a running sum l_i of exp(S_ij - m_i), and the
    unnormalised output acc_i. A key tile that raises m_i rescales l_i and
    acc_i by exp(m_old - m_new); a tile with no allowed key for row i leaves
    it untouched; the last tile may be shorter than tile_k.
    """
    Q, K, V, forbidden = _check(Q, K, V, mask)
    if int(tile_q) < 1 or int(tile_k) < 1:
        raise ValueError("tile sizes must be >= 1, got %r x %r" % (tile_q, tile_k))
    tile_q, tile_k = int(tile_q), int(tile_k)
    T_q, T_v = forbidden.shape
    d_v = V.shape[1]
    scale = np.sqrt(Q.shape[1])
    acc = np.zeros((T_q, d_v))
    m = np.full(T_q, -np.inf)
    l = np.zeros(T_q)
    for q0 in range(0, T_q, tile_q):
        q1 = min(q0 + tile_q, T_q)
        for k0 in range(0, T_v, tile_k):
            k1 = min(k0 + tile_k, T_v)
            S = Q[q0:q1] @ K[k0:k1].T / scale
            allowed = ~forbidden[q0:q1, k0:k1]
            if not np.isfinite(S[allowed]).all():
                raise ValueError("a logit overflows")
            P = np.zeros_like(S)
            for r in range(q1 - q0):
                i = q0 + r
                s = np.where(allowed[r], S[r], -np.inf)
                with np.errstate(invalid="ignore"):
                    tile_max = s.max()  # BUG: -inf for a wholly forbidden tile, not skipped
                    p = np.exp(s - tile_max)  # exp(-inf - (-inf)) = NaN
                    m_new = max(m[i], tile_max)
                    l[i] = np.exp(m[i] - m_new) * l[i] + np.exp(tile_max - m_new) * p.sum()
                    acc[i] *= np.exp(m[i] - m_new)
                    P[r] = p * np.exp(tile_max - m_new)
                m[i] = m_new
            with np.errstate(invalid="ignore"):
                acc[q0:q1] += P @ V[k0:k1]
    empty = np.flatnonzero(np.isneginf(m))
    if empty.size:
        raise ValueError("query row %d has every key forbidden" % empty[0])
    return acc / l[:, None], m + np.log(l)

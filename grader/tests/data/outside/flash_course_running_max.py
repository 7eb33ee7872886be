# The online softmax as a course notebook on efficient transformers teaches
# it: one running maximum per query row, updated block by block
#     m_new = max(m, rowmax(S_blk));  alpha = exp(m - m_new)
#     l = alpha * l + rowsum(exp(S_blk - m_new));  acc = alpha * acc + P @ V_blk
# with masked scores set to -inf. Nothing guards a row whose first key block
# is entirely masked: there m = m_new = -inf and exp(-inf - (-inf)) is NaN.
# Expected: tiled_forbidden_tile_nan, or no key.
# exercise: T1
import numpy as np


def check_inputs(q, k, v, mask):
    q, k, v = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float)
    assert q.ndim == k.ndim == v.ndim == 2
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"query dim {q.shape[-1]} != key dim {k.shape[-1]}")
    if k.shape[0] != v.shape[0]:
        raise ValueError("need one value per key")
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        dead = np.where(mask.all(axis=-1))[0]
        if len(dead):
            raise ValueError(f"query {dead[0]} cannot attend to any key")
    return q, k, v, mask


def attention(Q, K, V, mask=None):
    """Baseline: softmax(q k^T / sqrt(d)) v over the whole score matrix."""
    q, k, v, mask = check_inputs(Q, K, V, mask)
    scores = q @ k.T / np.sqrt(q.shape[-1])
    if mask is not None:
        scores[mask] = -np.inf
    probs = np.exp(scores - scores.max(axis=-1, keepdims=True))
    probs /= probs.sum(axis=-1, keepdims=True)
    return probs @ v, probs


def online_softmax_block(q_blk, k, v, mask_rows, block_k):
    """One block of queries against every key block; returns (out, lse)."""
    n = q_blk.shape[0]
    m = np.full(n, -np.inf)          # running max
    l = np.zeros(n)                  # running denominator
    acc = np.zeros((n, v.shape[-1]))  # running numerator
    scale = 1 / np.sqrt(q_blk.shape[-1])
    for start in range(0, k.shape[0], block_k):
        stop = min(start + block_k, k.shape[0])
        s = q_blk @ k[start:stop].T * scale
        if mask_rows is not None:
            s[mask_rows[:, start:stop]] = -np.inf
        m_new = np.maximum(m, s.max(axis=-1))
        alpha = np.exp(m - m_new)
        p = np.exp(s - m_new[:, None])
        l = alpha * l + p.sum(axis=-1)
        acc = alpha[:, None] * acc + p @ v[start:stop]
        m = m_new
    return acc / l[:, None], m + np.log(l)


def attention_tiled(Q, K, V, mask, tile_q, tile_k):
    q, k, v, mask = check_inputs(Q, K, V, mask)
    outs, lses = [], []
    for start in range(0, q.shape[0], tile_q):
        rows = None if mask is None else mask[start:start + tile_q]
        o, lse = online_softmax_block(q[start:start + tile_q], k, v, rows, tile_k)
        outs.append(o)
        lses.append(lse)
    return np.concatenate(outs, axis=0), np.concatenate(lses)

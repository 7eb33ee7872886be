"""Online softmax over key tiles of 64 that forgets to rescale the running
sum and the accumulator by exp(m_old - m_new) when the running maximum
grows (a row needs more than 64 keys, and a larger logit in a later tile)."""
# expect-fail: oracle_agreement
# zoo-entries: attention:float64
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402

from zoo_common import checked, masked_logits  # noqa: E402


def no_rescale(tile):
    """The kernel with key tiles of `tile` (online_no_rescale_tile128.py takes 128)."""

    def attention(Q, K, V, mask=None):
        Q, K, V, mask = checked(Q, K, V, mask)
        S, _ = masked_logits(Q, K, mask, np.float64)
        m = np.full((S.shape[0], 1), -np.inf)
        l = np.zeros((S.shape[0], 1))
        acc = np.zeros((S.shape[0], V.shape[1]))
        for start in range(0, S.shape[1], tile):
            St = S[:, start:start + tile]
            m = np.maximum(m, St.max(axis=1, keepdims=True))  # BUG: l and acc not rescaled
            P = np.exp(St - np.where(m > -np.inf, m, 0))
            l = l + P.sum(axis=1, keepdims=True)
            acc = acc + P @ V[start:start + tile]
        return acc / l, np.exp(S - m) / l
    return attention


attention = no_rescale(64)

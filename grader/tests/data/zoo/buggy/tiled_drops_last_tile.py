"""A tiled kernel (tiles of 32 keys) that loops over T_v // 32 whole
tiles and so drops the last partial tile whenever T_v > 32 is not a
multiple of 32 (a row shorter than one tile is one tile)."""
# expect-fail: oracle_agreement
# zoo-entries: attention:float64
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402

from zoo_common import checked, masked_logits  # noqa: E402


def attention(Q, K, V, mask=None):
    Q, K, V, mask = checked(Q, K, V, mask)
    S, _ = masked_logits(Q, K, mask, np.float64)
    T_v = S.shape[1]
    n_tiles = max(1, T_v // 32)  # BUG: the remainder T_v % 32 is never read
    used = S[:, :n_tiles * 32] if T_v >= 32 else S
    with np.errstate(invalid='ignore'):
        E = np.exp(used - used.max(axis=1, keepdims=True))
        A = np.zeros_like(S)
        A[:, :used.shape[1]] = E / E.sum(axis=1, keepdims=True)
    return A @ V, A

"""Declares float64 but sums the exponentials and P V in float32 when a
row has more than 256 keys (an error that grows with the length)."""
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
    E = np.exp(S - S.max(axis=1, keepdims=True))
    if S.shape[1] > 256:  # BUG: the long-row path in float32
        E = E.astype(np.float32)
        A = (E / E.sum(axis=1, keepdims=True)).astype(np.float64)
        return (A.astype(np.float32) @ V.astype(np.float32)).astype(np.float64), A
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V, A

"""The logits scaled by 1/d_k instead of 1/sqrt(d_k)."""
# expect-fail: oracle_agreement
# zoo-entries: attention:float64
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402

from zoo_common import checked, forbid  # noqa: E402


def attention(Q, K, V, mask=None):
    Q, K, V, mask = checked(Q, K, V, mask)
    S, _ = forbid((Q @ K.T) / Q.shape[1], mask, np.float64)  # BUG: the scale
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V, A

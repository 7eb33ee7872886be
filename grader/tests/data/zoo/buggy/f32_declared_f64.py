"""Computes in float32 and declares float64."""
# expect-fail: oracle_agreement
# zoo-entries: attention:float64
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402

from zoo_common import checked, masked_logits  # noqa: E402


def attention(Q, K, V, mask=None):
    Q, K, V, mask = checked(Q, K, V, mask)
    f = np.float32
    S, _ = masked_logits(Q.astype(f), K.astype(f), mask, f)  # BUG: float32
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return (A @ V.astype(f)).astype(np.float64), A.astype(np.float64)

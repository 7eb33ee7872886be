"""The shift by the maximum of the whole matrix S instead of each row's:
a row far below the global maximum underflows to all zeros (0 / 0)."""
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
    E = np.exp(S - S.max())  # BUG: one shift for every row
    with np.errstate(invalid='ignore'):
        A = E / E.sum(axis=1, keepdims=True)
    return A @ V, A

"""The softmax taken over axis 0 (the queries) when S is square, over the
keys otherwise (a transpose forgotten on one code path)."""
# expect-fail: row_stochastic
# zoo-entries: attention:float64
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402

from zoo_common import checked, masked_logits  # noqa: E402


def attention(Q, K, V, mask=None):
    Q, K, V, mask = checked(Q, K, V, mask)
    S, _ = masked_logits(Q, K, mask, np.float64)
    axis = 0 if S.shape[0] == S.shape[1] else 1  # BUG: the wrong axis for square S
    with np.errstate(invalid='ignore'):
        E = np.exp(S - S.max(axis=axis, keepdims=True))
        A = np.nan_to_num(E / E.sum(axis=axis, keepdims=True))
    return A @ V, A

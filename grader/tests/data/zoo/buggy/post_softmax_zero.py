"""The softmax over every key, then the forbidden weights set to 0 with
no renormalisation."""
# expect-fail: row_stochastic
# zoo-entries: attention:float64
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402

from zoo_common import checked  # noqa: E402


def attention(Q, K, V, mask=None):
    Q, K, V, mask = checked(Q, K, V, mask)
    S = (Q @ K.T) / np.sqrt(Q.shape[1])
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    if mask is not None:
        A = np.where(mask, 0.0, A)  # BUG: masked after the softmax
    return A @ V, A

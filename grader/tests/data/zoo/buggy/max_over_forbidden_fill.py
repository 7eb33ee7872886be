"""Forbidden logits filled with the finite -1e4 and the maximum taken
over every key, forbidden ones included: when the allowed logits lie
below -1e4 the forbidden keys take the weight."""
# expect-fail: exact_zeros
# zoo-entries: attention:float64
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402

from zoo_common import checked  # noqa: E402


def attention(Q, K, V, mask=None):
    Q, K, V, mask = checked(Q, K, V, mask)
    S = (Q @ K.T) / np.sqrt(Q.shape[1])
    if mask is not None:
        S = np.where(mask, -1e4, S)  # BUG: a finite fill
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V, A

"""The boolean mask added to the logits (S + mask) instead of forbidding:
a forbidden key's logit is one larger, not -inf."""
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
        S = S + mask  # BUG: additive, and of the wrong sign and size
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V, A

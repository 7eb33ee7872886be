"""A normalised, but O = E V from the unnormalised exponentials (the
division by Z forgotten on the output path)."""
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
    A = E / E.sum(axis=1, keepdims=True)
    return E @ V, A  # BUG: E, not A

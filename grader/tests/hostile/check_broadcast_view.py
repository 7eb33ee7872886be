# command: check
# expect-exit: 1
# expect-text: O has shape \(1000000, 1000000\) \(1000000000000 entries\), expected \([0-9]+, [0-9]+\)
"""Hostile kernel for attnlab check: O is a broadcast view of 10^12
entries (np.broadcast_to costs nothing until it is read, then 8 TB). It
must be refused by its shape, before anything is read."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from right_attention import right_attention  # noqa: E402


def attention(Q, K, V, mask=None):
    _, A = right_attention(Q, K, V, mask)
    return np.broadcast_to(np.float64(0.5), (10**6, 10**6)), A

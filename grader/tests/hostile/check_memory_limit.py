# command: check
# expect-exit: 1
# expect-text: MemoryError
"""Hostile kernel for attnlab check: every call reserves 5 GiB (not
touched). attnlab check holds a kernel to grade's memory limit (--memory,
4096 MiB by default), so the reservation fails."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from right_attention import right_attention  # noqa: E402


def attention(Q, K, V, mask=None):
    scratch = np.empty(5 << 27)  # 5 GiB of float64, reserved, not touched
    scratch[:1] = 0
    return right_attention(Q, K, V, mask)

# command: check
# expect-exit: 1
# expect-text: the function modified its input Q in place
"""Hostile kernel for attnlab check: right answers, but it scales the
caller's Q in place (Q *= 0.5); the caller's Q must stay as given."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from right_attention import right_attention  # noqa: E402


def attention(Q, K, V, mask=None):
    Q *= 0.5  # in place: the caller's Q changes
    return right_attention(2 * Q, K, V, mask)

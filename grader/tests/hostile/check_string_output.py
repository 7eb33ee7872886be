# command: check
# expect-exit: 1
# expect-text: A holds strings \(dtype <U[0-9]+\), expected real floating-point numbers
"""Hostile kernel for attnlab check: A is an array of strings holding the
right numbers ("0.25"); a float64 conversion would parse them and pass it."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from right_attention import right_attention  # noqa: E402


def attention(Q, K, V, mask=None):
    O, A = right_attention(Q, K, V, mask)
    return O, np.array([[repr(x) for x in row] for row in A.tolist()]).reshape(A.shape)

# command: check
# expect-exit: 1
# expect-text: O holds complex numbers \(dtype complex128\), expected real floating-point numbers
"""Hostile kernel for attnlab check: right numbers, but O is a complex
array (imaginary parts 0); a float64 conversion would drop the type and
pass it. The answer must hold real floating-point numbers."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from right_attention import right_attention  # noqa: E402


def attention(Q, K, V, mask=None):
    O, A = right_attention(Q, K, V, mask)
    return O.astype(np.complex128), A

# exercise: F3
# A mutant file whose header lacks the `mutant:` line (a test fixture).
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    raise ValueError("never graded")

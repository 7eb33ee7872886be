"""B1 (a library operation graded like an exercise, see README.md): the
backward pass of attention, in NumPy. Skeleton.

Write the function below, then grade the file:
    attnlab grade skeleton.py
As it stands, the skeleton refuses every case, so it fails the properties.
"""
# exercise: B1

import numpy as np  # noqa: F401  (you will need it)


def attention_backward(Q, K, V, dO, mask=None, scale=None, causal=False):
    """(dQ, dK, dV): the gradients of sum(dO * O), O = attention(Q, K, V, mask);
    mask True = forbidden; scale None = 1/sqrt(d_k); causal forbids j > i."""
    raise NotImplementedError("B1: attention_backward is not written yet")

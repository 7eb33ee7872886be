"""C1 (a library operation graded like an exercise, see README.md): the
causal and padding masks of section 32.2.4, in NumPy. Skeleton.

Write both functions below, then grade the file:
    attnlab grade skeleton.py
As it stands, the skeleton refuses every case, so it fails the properties.
"""
# exercise: C1

import numpy as np  # noqa: F401  (you will need it)


def causal_mask(T_q, T_v, alignment="top_left"):
    """T_q x T_v bools, True = forbidden. "top_left": key j is forbidden for
    query i when j > i. "bottom_right": when j > i + (T_v - T_q)."""
    raise NotImplementedError("C1: causal_mask is not written yet")


def padding_mask(T_q, T_v, key_length):
    """T_q x T_v bools, True = forbidden: keys j >= key_length, for every query."""
    raise NotImplementedError("C1: padding_mask is not written yet")

"""Model solution of C1 (exercises/C1/README.md) in NumPy: the causal and
padding masks of section 32.2.4, True = forbidden.

Grade it with: attnlab grade solutions/C1/masks.py
"""
# exercise: C1

import numpy as np


def causal_mask(T_q, T_v, alignment="top_left"):
    """T_q x T_v bools: key j is forbidden for query i when j > i + offset,
    offset 0 ("top_left") or T_v - T_q ("bottom_right", the last query sees
    every key). Raises ValueError for an unknown alignment or a negative size."""
    if T_q < 0 or T_v < 0:
        raise ValueError("sizes must be >= 0, got T_q = %d, T_v = %d" % (T_q, T_v))
    offsets = {"top_left": 0, "bottom_right": T_v - T_q}
    if alignment not in offsets:
        raise ValueError("alignment must be 'top_left' or 'bottom_right', got %r" % (alignment,))
    query = np.arange(T_q)[:, None]
    key = np.arange(T_v)[None, :]
    return key > query + offsets[alignment]


def padding_mask(T_q, T_v, key_length):
    """T_q x T_v bools: keys j >= key_length are forbidden for every query.
    Raises ValueError unless 0 <= key_length <= T_v."""
    if not 0 <= key_length <= T_v or T_q < 0:
        raise ValueError("need 0 <= key_length <= T_v, got key_length = %d, T_v = %d"
                         % (key_length, T_v))
    return np.broadcast_to(np.arange(T_v)[None, :] >= key_length, (T_q, T_v)).copy()
